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
  results: Array<
    LevelResult & {
      scenario: string;
      processes: Record<string, ProcessWindow & { cpuMsPerFlow: number }>;
      loadGeneratorCpuSeconds: number;
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

/** The library peer's scenario for each Attesto scenario that has one (main.ts runs them in pairs). */
export const PEER_SCENARIO: Record<string, string> = {
  "issuance-did": "peer-issuance",
  "verification-did": "peer-verification",
};

export interface PeerComparison {
  scenario: string;
  concurrency: number;
  attesto: { flowsPerSecond: number; cpuMsPerFlow: number; postgresCpuMsPerFlow: number | null; p50: number };
  peer: { flowsPerSecond: number; cpuMsPerFlow: number; p50: number };
  /** Attesto / peer. */
  ratio: { flowsPerSecond: number; cpuMsPerFlow: number; p50: number };
}

const cpuMsPerFlow = (level: Report["results"][number]) =>
  level.flows > 0 ? (Object.values(level.processes).reduce((sum, p) => sum + p.cpuSeconds, 0) / level.flows) * 1000 : 0;
const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Attesto against the library peer, per scenario and concurrency: flows/s, CPU per flow (every
 * Attesto process plus the PostgreSQL backends serving it, against the peer's one process) and
 * p50 latency, with the Attesto / peer ratio of each.
 */
export function comparePeers(results: Report["results"]): PeerComparison[] {
  const comparisons: PeerComparison[] = [];
  for (const level of results) {
    const peerScenario = PEER_SCENARIO[level.scenario];
    const peer = results.find((r) => r.scenario === peerScenario && r.concurrency === level.concurrency);
    if (!peer || level.flows === 0 || peer.flows === 0) continue;
    const attestoCpu = cpuMsPerFlow(level);
    const peerCpu = cpuMsPerFlow(peer);
    const postgres = level.processes.postgres;
    comparisons.push({
      scenario: level.scenario,
      concurrency: level.concurrency,
      attesto: {
        flowsPerSecond: level.flowsPerSecond,
        cpuMsPerFlow: round2(attestoCpu),
        postgresCpuMsPerFlow: postgres ? round2((postgres.cpuSeconds / level.flows) * 1000) : null,
        p50: level.flowLatencyMs.p50,
      },
      peer: { flowsPerSecond: peer.flowsPerSecond, cpuMsPerFlow: round2(peerCpu), p50: peer.flowLatencyMs.p50 },
      ratio: {
        flowsPerSecond: round2(level.flowsPerSecond / peer.flowsPerSecond),
        cpuMsPerFlow: round2(attestoCpu / peerCpu),
        p50: round2(level.flowLatencyMs.p50 / peer.flowLatencyMs.p50),
      },
    });
  }
  return comparisons;
}

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

  out.push("\nFlows (end to end; latency in ms)");
  out.push(
    table(
      ["flow", "conc", "flows/s", "p50", "p95", "p99", "errors"],
      report.results.map((r) => [
        r.flow,
        r.concurrency,
        r.flowsPerSecond.toFixed(1),
        ms(r.flowLatencyMs.p50),
        ms(r.flowLatencyMs.p95),
        ms(r.flowLatencyMs.p99),
        r.errors,
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

  const comparisons = comparePeers(report.results);
  if (comparisons.length > 0) {
    out.push(
      `\nAttesto (${report.topology}) / library peer, same run (CPU: every Attesto process + the PostgreSQL backends ` +
        "serving it, in ms per flow; the peer is one in-memory process)",
    );
    out.push(
      table(
        [
          "flow",
          "conc",
          "flows/s Attesto",
          "peer",
          "ratio",
          "CPU ms Attesto (PG)",
          "peer",
          "ratio",
          "p50 ms Attesto",
          "peer",
          "ratio",
        ],
        comparisons.map((c) => [
          c.scenario,
          c.concurrency,
          c.attesto.flowsPerSecond.toFixed(1),
          c.peer.flowsPerSecond.toFixed(1),
          `${c.ratio.flowsPerSecond.toFixed(2)}x`,
          `${c.attesto.cpuMsPerFlow.toFixed(1)} (${c.attesto.postgresCpuMsPerFlow === null ? "-" : c.attesto.postgresCpuMsPerFlow.toFixed(1)})`,
          c.peer.cpuMsPerFlow.toFixed(1),
          `${c.ratio.cpuMsPerFlow.toFixed(2)}x`,
          ms(c.attesto.p50),
          ms(c.peer.p50),
          `${c.ratio.p50.toFixed(2)}x`,
        ]),
      ),
    );
  }

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
