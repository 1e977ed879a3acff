export interface ReadyReport {
  services: ReadonlyArray<{ name: string; port: number; publicUrl: string; internalUrl: string }>;
  /** Milliseconds from process start to every service being healthy. */
  elapsedMs: number;
  database: { description: string; url: string; embedded: boolean };
  /** Internal `host:port` entries outbound requests may reach (the outbound request guard's allowance). */
  outboundAllowance?: readonly string[];
  /** The auth server trusts the demo wallet provider, whose private key is public (loopback only). */
  demoWalletProviderTrusted?: boolean;
}

/** The table people read after `npm start` (by port): where each service is, how long start-up took. */
export function formatReadyReport(report: ReadyReport): string {
  const rows = [
    ["service", "public URL", "internal URL"],
    ...[...report.services].sort((a, b) => a.port - b.port).map((s) => [s.name, s.publicUrl, s.internalUrl]),
  ];
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    `  ${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}`.trimEnd(),
  );
  lines.splice(1, 0, `  ${"-".repeat(widths[0]!)}  ${"-".repeat(widths[1]!)}  ${"-".repeat(12)}`);
  if (report.database.embedded) lines.push("", `  database URL (psql): ${report.database.url}`);
  if (report.outboundAllowance) {
    const allowed = report.outboundAllowance.length > 0 ? report.outboundAllowance.join(", ") : "none";
    lines.push(
      "",
      "  outbound requests (offers, metadata, request objects, webhooks) reach public addresses only,",
      `  and of internal ones only these (OUTBOUND_ALLOW_HOSTS): ${allowed}`,
    );
  }
  if (report.demoWalletProviderTrusted) {
    lines.push(
      "",
      "  WARNING: the auth server trusts the DEMO wallet provider, whose private key is public, because every",
      "  listener is bound to loopback; binding to another interface (HOST) turns this off unless",
      "  CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER is set",
    );
  }
  const seconds = (report.elapsedMs / 1000).toFixed(1);
  return `\n${lines.join("\n")}\n\nAttesto ready in ${seconds} s (database: ${report.database.description})\n`;
}
