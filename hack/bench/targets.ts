import type { Footprint } from "./footprint.js";
import type { TopologyReport } from "./measure-topology.js";
import { table } from "./report.js";

/**
 * The table of issue 28's targets from one `npm run bench`: each row Attesto's figure, the library
 * peer's from the same run, their ratio, the target and whether it is met. CPU per flow is every
 * Attesto process with its descendants (the native embedded PostgreSQL) plus, on external
 * PostgreSQL, the backends serving it; the peer is one in-memory process.
 */
export interface TargetRow {
  label: string;
  unit: string;
  attesto: number;
  peer: number;
  /** Attesto / peer. */
  ratio: number;
  target: string;
  met: boolean;
}

type Level = TopologyReport["results"][number];

const cpuMsPerFlow = (level: Level) =>
  level.flows > 0 ? (Object.values(level.processes).reduce((sum, p) => sum + p.cpuSeconds, 0) / level.flows) * 1000 : 0;

const levelOf = (report: TopologyReport, scenario: string, concurrency: number) => {
  const level = report.results.find((r) => r.scenario === scenario && r.concurrency === concurrency);
  if (!level) throw new Error(`${report.topology}: no ${scenario} level at concurrency ${concurrency}`);
  return level;
};

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function ratioRow(
  label: string,
  unit: string,
  attesto: number,
  peer: number,
  limit: { max?: number; min?: number },
): TargetRow {
  const ratio = peer > 0 ? attesto / peer : Number.NaN;
  const met = limit.max !== undefined ? ratio <= limit.max : ratio >= limit.min!;
  const target = limit.max !== undefined ? `≤ ${limit.max}×` : `≥ ${limit.min}×`;
  return { label, unit, attesto: round(attesto, 2), peer: round(peer, 2), ratio: round(ratio, 2), target, met };
}

function absoluteRow(label: string, unit: string, attesto: number, peer: number, max: number): TargetRow {
  const ratio = peer > 0 ? attesto / peer : Number.NaN;
  return {
    label,
    unit,
    attesto: round(attesto, 2),
    peer: round(peer, 2),
    ratio: round(ratio, 2),
    target: `≤ ${max} ${unit}`,
    met: attesto <= max,
  };
}

export function targetRows(allInOne: TopologyReport, separate: TopologyReport, footprint: Footprint): TargetRow[] {
  const issuance16 = levelOf(allInOne, "issuance-did", 16);
  const peerIssuance16 = levelOf(allInOne, "peer-issuance", 16);
  const issuance1 = levelOf(allInOne, "issuance-did", 1);
  const peerIssuance1 = levelOf(allInOne, "peer-issuance", 1);
  const verification16 = levelOf(allInOne, "verification-did", 16);
  const peerVerification16 = levelOf(allInOne, "peer-verification", 16);
  const separate16 = levelOf(separate, "issuance-did", 16);
  const peerSeparate16 = levelOf(separate, "peer-issuance", 16);
  return [
    ratioRow(
      "issuance CPU per flow, all-in-one on the embedded default, c=16 (PostgreSQL included)",
      "ms",
      cpuMsPerFlow(issuance16),
      cpuMsPerFlow(peerIssuance16),
      { max: 2.5 },
    ),
    ratioRow(
      "issuance CPU per flow, separate processes on PostgreSQL, c=16 (backends included)",
      "ms",
      cpuMsPerFlow(separate16),
      cpuMsPerFlow(peerSeparate16),
      { max: 4 },
    ),
    ratioRow("issuance flows/s, all-in-one, c=16", "/s", issuance16.flowsPerSecond, peerIssuance16.flowsPerSecond, {
      min: 0.5,
    }),
    ratioRow("issuance p50, all-in-one, c=1", "ms", issuance1.flowLatencyMs.p50, peerIssuance1.flowLatencyMs.p50, {
      max: 2.5,
    }),
    ratioRow(
      "verification CPU per flow, all-in-one, c=16",
      "ms",
      cpuMsPerFlow(verification16),
      cpuMsPerFlow(peerVerification16),
      { max: 3 },
    ),
    absoluteRow("npm start: cold start to ready", "s", footprint.coldStartMs / 1000, footprint.peer.startMs / 1000, 5),
    absoluteRow(
      "npm start: idle memory (PSS of the process tree)",
      "MiB",
      footprint.idlePssMb,
      footprint.peer.idlePssMb,
      300,
    ),
    absoluteRow("npm start: idle CPU (% of one core)", "%", footprint.idleCpuPercent, footprint.peer.idleCpuPercent, 1),
  ];
}

export function formatTargets(rows: TargetRow[]): string {
  return table(
    ["", "Attesto", "peer", "ratio", "target", "met?"],
    rows.map((row) => [
      row.label,
      `${row.attesto} ${row.unit}`,
      `${row.peer} ${row.unit}`,
      Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}×` : "–",
      row.target,
      row.met ? "met" : "NOT MET",
    ]),
  );
}
