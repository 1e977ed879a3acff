import type { CeilingResult } from "./ceiling.js";
import type { ProcessWindow } from "./proc-stats.js";
import type { ProfileSummary } from "./profile.js";
import type { LevelResult } from "./runner.js";

export interface Report {
  machine: {
    cores: number;
    cpu: string;
    memoryGb: number;
    node: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  database: string;
  topology: string;
  runtime: string;
  logLevel: string;
  durationSecondsPerLevel: number;
  memory: {
    idleRssMb: Record<string, number>;
    peakRssMb: Record<string, number>;
    idleHeapMb: Record<string, { heapUsedMb: number; externalMb: number }>;
  };
  idleCpuPercent: Record<string, number>;
  ceilings: Record<string, CeilingResult>;
  results: Array<
    LevelResult & {
      scenario: string;
      processes: Record<string, ProcessWindow & { cpuMsPerFlow: number }>;
      loadGeneratorCpuSeconds: number;
      achievedToCeiling?: number;
    }
  >;
  profiles: ProfileSummary[];
}

/** A plain-text table: a header row, a rule, right-aligned numbers. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  const line = (row: string[], numeric: boolean) =>
    row
      .map((cell, column) =>
        numeric && column > 0 && /^[\d.,x%/ -]+$/.test(cell)
          ? cell.padStart(widths[column]!)
          : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  return [
    line(headers, false),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map((r) => line(r, true)),
  ].join("\n");
}

const ms = (value: number) => value.toFixed(1);

export function formatReport(report: Report): string {
  const out: string[] = [];
  const m = report.machine;
  out.push(
    `Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, Node ${m.node}; load average ${m.loadAverageAtStart.join(" ")} at start, ` +
      `${m.loadAverageAtEnd.join(" ")} at end`,
  );
  out.push(
    `Platform: ${report.topology} (${report.runtime}), ${report.database}, LOG_LEVEL=${report.logLevel}; ${report.durationSecondsPerLevel} s per level, closed loop`,
  );

  out.push("\nFlows (end to end; latency in ms; ceiling = in-process crypto of one flow x cores)");
  out.push(
    table(
      ["flow", "conc", "flows/s", "p50", "p95", "p99", "errors", "ceiling/s", "achieved/ceiling"],
      report.results.map((r) => [
        r.flow,
        r.concurrency,
        r.flowsPerSecond.toFixed(1),
        ms(r.flowLatencyMs.p50),
        ms(r.flowLatencyMs.p95),
        ms(r.flowLatencyMs.p99),
        r.errors,
        report.ceilings[r.scenario]?.machine ?? "-",
        r.achievedToCeiling === undefined ? "-" : `${(r.achievedToCeiling * 100).toFixed(1)}%`,
      ]),
    ),
  );

  out.push("\nSteps (ms: p50 / p95 / p99)");
  out.push(
    table(
      ["flow", "conc", "step", "p50", "p95", "p99"],
      report.results.flatMap((r) =>
        Object.entries(r.stepLatencyMs).map(([step, p]) => [
          r.flow,
          r.concurrency,
          step,
          ms(p.p50),
          ms(p.p95),
          ms(p.p99),
        ]),
      ),
    ),
  );

  const services = [...new Set(report.results.flatMap((r) => Object.keys(r.processes)))];
  out.push(
    `\nCPU per flow (ms of CPU time per completed flow, per process; capacity = ${report.machine.cores} cores x 1000 / ` +
      "(services + load generator): the rate this machine could sustain if CPU were the only limit)",
  );
  out.push(
    table(
      ["flow", "conc", ...services, "services", "load generator", "capacity/s"],
      report.results.map((r) => {
        const perFlow = (seconds: number) => (r.flows > 0 ? (seconds / r.flows) * 1000 : 0);
        const servicesMs = Object.values(r.processes).reduce((sum, p) => sum + perFlow(p.cpuSeconds), 0);
        const clientMs = perFlow(r.loadGeneratorCpuSeconds);
        return [
          r.flow,
          r.concurrency,
          ...services.map((s) => (r.processes[s] ? r.processes[s].cpuMsPerFlow.toFixed(1) : "-")),
          servicesMs.toFixed(1),
          clientMs.toFixed(1),
          servicesMs + clientMs > 0 ? Math.round((report.machine.cores * 1000) / (servicesMs + clientMs)) : "-",
        ];
      }),
    ),
  );

  out.push("\nMemory (RSS, MB) and idle CPU (% of one core, measured 5-10 s after start-up)");
  out.push(
    table(
      ["process", "idle RSS", "idle V8 heap used", "idle external", "peak RSS under load", "idle CPU %"],
      Object.keys(report.memory.idleRssMb).map((name) => [
        name,
        report.memory.idleRssMb[name] ?? "-",
        report.memory.idleHeapMb[name]?.heapUsedMb ?? "-",
        report.memory.idleHeapMb[name]?.externalMb ?? "-",
        report.memory.peakRssMb[name] ?? "-",
        report.idleCpuPercent[name] ?? "-",
      ]),
    ),
  );

  if (Object.keys(report.ceilings).length > 0) {
    out.push("\nIn-process ceiling (flows/s)");
    out.push(
      table(
        ["flow", "one core", "all cores"],
        Object.values(report.ceilings).map((c) => [c.flow, c.perCore, c.machine]),
      ),
    );
  }

  for (const profile of report.profiles) {
    const busy = profile.windowMs - profile.idleMs;
    out.push(
      `\nProfile ${profile.service} (${profile.file}): ${busy} ms busy of ${profile.windowMs} ms sampled during the measured levels`,
    );
    out.push(
      table(
        ["area (self time)", "ms", "%"],
        profile.byArea.slice(0, 12).map((a) => [a.area, a.ms, a.percent]),
      ),
    );
    out.push(
      table(
        ["self time: function", "location", "ms", "%"],
        profile.topSelf.slice(0, 12).map((f) => [f.name, f.location, f.ms, f.percent]),
      ),
    );
    out.push(
      table(
        ["node internals charged to the caller", "location", "ms", "%"],
        profile.topByCaller.slice(0, 15).map((f) => [f.name, f.location, f.ms, f.percent]),
      ),
    );
    out.push(
      table(
        ["inclusive: our function", "location", "ms", "%"],
        profile.topAttestoInclusive.slice(0, 15).map((f) => [f.name, f.location, f.ms, f.percent]),
      ),
    );
  }
  return out.join("\n");
}
