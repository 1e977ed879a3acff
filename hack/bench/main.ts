/**
 * `npm run bench` (method and figures: README.md beside this file). With no arguments it prints
 * issue 28's target table from one run: the all-in-one on its embedded database (as `npm start`
 * runs) for issuance at c=16 and c=1 and verification at c=16, the services as separate processes
 * on the PostgreSQL at DATABASE_URL for issuance at c=16, and the footprint of `npm start`; each
 * beside the library peer (peer/main.ts) measured in the same minute. Writes bench-results.json
 * and exits non-zero when any flow failed.
 *
 * One topology with the old detailed report instead: `--all-in-one [--embedded]` or `--separate`
 * (BENCH_SCENARIOS, BENCH_CONCURRENCY); `--count-queries` counts database round trips per flow;
 * `--soak` runs the bounded load test of soak.ts; `--footprint` measures `npm start` alone.
 */
import { writeFileSync } from "node:fs";
import { measureFootprint, printFootprint } from "./footprint.js";
import { ALL_SCENARIOS, measureTopology, type TopologyReport, type TopologySettings } from "./measure-topology.js";
import { loadAverage, machineFacts } from "./proc-stats.js";
import { comparePeers, formatReport } from "./report.js";
import { formatTargets, targetRows } from "./targets.js";
import { type RunningPeer, startLibraryPeer } from "./topology.js";

const env = process.env;
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const numberOf = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!(value >= 0)) throw new Error(`${name} must be a number >= 0`);
  return value;
};

/**
 * 21500: ports 29581..29588 and 30581..30588, clear of the test suites' platforms (offsets listed
 * in test/interop/support/platform.ts) and below Linux's ephemeral range (32768+), where outgoing
 * connections of anything on the machine could already hold the port.
 */
const PORT_OFFSET = Number(env.BENCH_PORT_OFFSET ?? 21_500);
/** The library peer's port: just above the bench's public service ports (29590 by default). */
const PEER_PORT = 8090 + PORT_OFFSET;
const DATABASE_URL = env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";

const base: Omit<TopologySettings, "allInOne" | "embedded" | "plan"> = {
  runtime: env.BENCH_RUNTIME === "tsx" ? "tsx" : "compiled",
  databaseUrl: DATABASE_URL,
  portOffset: PORT_OFFSET,
  logLevel: env.BENCH_LOG_LEVEL ?? "warn",
  durationSeconds: numberOf("BENCH_DURATION_SECONDS", 15),
  warmUp: {
    windowSeconds: numberOf("BENCH_WARMUP_WINDOW_SECONDS", 5),
    tolerance: numberOf("BENCH_WARMUP_TOLERANCE", 0.05),
    maxSeconds: numberOf("BENCH_WARMUP_SECONDS", 60),
  },
  profile:
    !env.BENCH_PROFILE || env.BENCH_PROFILE === "0"
      ? []
      : env.BENCH_PROFILE === "1"
        ? ["auth-server", "credential-issuer", "verifier", "trust-registry", "ledger", "holder"]
        : env.BENCH_PROFILE.split(",").map((value) => value.trim()),
  countQueries: flag("--count-queries") || env.BENCH_COUNT_QUERIES === "1",
  listStatements: env.BENCH_LIST_STATEMENTS === "1",
  soak: flag("--soak"),
  holderWalletSize: numberOf("BENCH_HOLDER_WALLET_SIZE", 8),
};

async function withPeer<T>(use: (peer: RunningPeer | undefined) => Promise<T>, wanted = true) {
  const peer = wanted ? await startLibraryPeer(PEER_PORT) : undefined;
  try {
    return await use(peer);
  } finally {
    await peer?.stop();
  }
}

/** One topology with the detailed report (the flags of the header). */
async function single() {
  const concurrency = (env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map((value) => Number(value.trim()));
  if (concurrency.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new Error("BENCH_CONCURRENCY must list positive integers");
  }
  const scenarios = (env.BENCH_SCENARIOS ?? ALL_SCENARIOS.join(",")).split(",").map((value) => value.trim());
  const allInOne = flag("--all-in-one");
  const settings: TopologySettings = {
    ...base,
    allInOne,
    embedded: allInOne && flag("--embedded"),
    plan: scenarios.map((scenario) => ({ scenario, concurrency })),
  };
  // The peer is left out by BENCH_PEER=0, and where nothing is compared (soak, statement counts).
  const wanted = env.BENCH_PEER !== "0" && !base.soak && !base.countQueries;
  const report = await withPeer((peer) => measureTopology(settings, peer), wanted);
  if (!report) return;
  writeFileSync(
    "bench-results.json",
    `${JSON.stringify({ ...report, peerComparisons: comparePeers(report.results) }, null, 2)}\n`,
  );
  process.stdout.write(`\n${formatReport(report)}\nwrote bench-results.json\n`);
  failOnErrors([report]);
}

function failOnErrors(reports: TopologyReport[]) {
  const errors = reports.reduce((sum, report) => sum + report.errors, 0);
  if (errors > 0) {
    process.stderr.write(`\n${errors} flows failed: the benchmark requires zero errors (see the samples above)\n`);
    process.exitCode = 1;
  }
}

/** The default: issue 28's target table from one run. */
async function targets() {
  const started = Date.now();
  const loadAtStart = loadAverage();
  const machine = machineFacts();
  process.stdout.write(
    `attesto bench: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}; load average ${loadAtStart.join(" ")}\n`,
  );
  const [allInOne, separate] = await withPeer(async (peer) => {
    const embedded = await measureTopology(
      {
        ...base,
        allInOne: true,
        embedded: true,
        plan: [
          { scenario: "issuance-did", concurrency: [16, 1] },
          { scenario: "verification-did", concurrency: [16] },
        ],
      },
      peer,
    );
    const processes = await measureTopology(
      { ...base, allInOne: false, embedded: false, plan: [{ scenario: "issuance-did", concurrency: [16] }] },
      peer,
    );
    return [embedded!, processes!];
  });
  const footprint = await measureFootprint(false);
  const rows = targetRows(allInOne, separate, footprint);
  const loadAtEnd = loadAverage();
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  writeFileSync(
    "bench-results.json",
    `${JSON.stringify(
      {
        machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
        targets: rows,
        allInOne,
        separate,
        footprint,
      },
      null,
      2,
    )}\n`,
  );
  for (const report of [allInOne, separate]) process.stdout.write(`\n${formatReport(report)}\n`);
  const errors = allInOne.errors + separate.errors;
  process.stdout.write(
    `\nAttesto against the library peer, one run (${new Date().toISOString().slice(0, 16)}Z, ${minutes} min; ` +
      `${machine.cores} cores, ${machine.cpu}, Node ${machine.node}; load average ${loadAtStart[0]} at start, ${loadAtEnd[0]} at end; ` +
      `${base.durationSeconds} s per level after warm-up; ${errors} errors)\n\n${formatTargets(rows)}\n\nwrote bench-results.json\n`,
  );
  failOnErrors([allInOne, separate]);
}

if (flag("--footprint")) await printFootprint();
else if (["--all-in-one", "--separate", "--soak", "--count-queries"].some(flag)) await single();
else await targets();
