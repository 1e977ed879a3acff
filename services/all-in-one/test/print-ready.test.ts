import { describe, expect, it } from "vitest";
import { formatReadyReport } from "../src/print-ready.js";

describe("formatReadyReport", () => {
  it("lists services by port and ends with the ready line", () => {
    const text = formatReadyReport({
      services: [
        { name: "ledger", port: 8088, publicUrl: "http://localhost:8088", internalUrl: "http://localhost:9088" },
        { name: "auth-server", port: 8081, publicUrl: "http://localhost:8081", internalUrl: "http://localhost:9081" },
      ],
      elapsedMs: 5234,
      database: {
        description: "embedded PGlite at .attesto/pgdata",
        url: "postgres://postgres@127.0.0.1:5/postgres",
        embedded: true,
      },
    });
    expect(text).toBe(
      [
        "",
        "  service      public URL             internal URL",
        "  -----------  ---------------------  ------------",
        "  auth-server  http://localhost:8081  http://localhost:9081",
        "  ledger       http://localhost:8088  http://localhost:9088",
        "",
        "  database URL (psql): postgres://postgres@127.0.0.1:5/postgres",
        "",
        "Attesto ready in 5.2 s (database: embedded PGlite at .attesto/pgdata)",
        "",
      ].join("\n"),
    );
  });

  it("says which internal origins outbound requests may reach", () => {
    const text = formatReadyReport({
      services: [],
      elapsedMs: 1000,
      database: { description: "PostgreSQL", url: "postgres://x", embedded: false },
      outboundAllowance: ["localhost:8081", "localhost:8082"],
    });
    expect(text).toContain(
      [
        "  outbound requests (offers, metadata, request objects, webhooks) reach public addresses only,",
        "  and of internal ones only these (OUTBOUND_ALLOW_HOSTS): localhost:8081, localhost:8082",
      ].join("\n"),
    );
  });

  it("warns when the auth server trusts the demo wallet provider", () => {
    const report = {
      services: [],
      elapsedMs: 1000,
      database: { description: "PostgreSQL", url: "x", embedded: false },
    };
    expect(formatReadyReport({ ...report, demoWalletProviderTrusted: true })).toContain(
      "  WARNING: the auth server trusts the DEMO wallet provider, whose private key is public, because every",
    );
    expect(formatReadyReport({ ...report, demoWalletProviderTrusted: false })).not.toContain("DEMO");
  });
});
