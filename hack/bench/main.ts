/**
 * `npm run bench` (see README.md beside this file): starts the platform against PostgreSQL as one
 * process per service (or `--all-in-one`), warms up, drives the end-to-end issuance and
 * verification flows at several concurrency levels over a bounded undici pool, samples CPU and
 * memory of every service process from /proc, measures the in-process crypto ceiling of each flow,
 * and prints a table and writes bench-results.json. BENCH_PROFILE=1 runs the auth server, issuer,
 * verifier, trust registry, ledger and holder under `node --cpu-prof` and summarizes where their
 * time went; `--count-queries` counts database round trips per flow instead of timing; `--soak`
 * runs the bounded load test of soak.ts (zero errors, bounded memory, every record stored).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "@attesto/store";
import { type CeilingResult, ceilingFlows, measureCeiling } from "./ceiling.js";
import {
  type BenchTenant,
  createBenchTenant,
  createHolderAccount,
  type Flow,
  holderPresentFlow,
  holderReceiveFlow,
  type IssuedCredential,
  issuanceFlow,
  peerIssuanceFlow,
  verificationFlow,
} from "./flows.js";
import { HttpClient } from "./http.js";
import { PgBackends } from "./pg-backends.js";
import type { PgCounter } from "./pg-counter.js";
import {
  loadAverage,
  machineFacts,
  type ProcessWindow,
  sampleProcess,
  selfCpuSeconds,
  watchProcesses,
} from "./proc-stats.js";
import { monotonicMicros, type ProfileSummary, type ProfileWindow, summarizeProfiles } from "./profile.js";
import { comparePeers, formatReport, PEER_SCENARIO, table } from "./report.js";
import { type LevelResult, runLevel } from "./runner.js";
import { runSoak } from "./soak.js";
import {
  BENCH_SERVICES,
  benchSchemas,
  type RunningPeer,
  repoRoot,
  startBenchPlatform,
  startLibraryPeer,
} from "./topology.js";

const env = process.env;
const CONCURRENCY = (env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map((value) => Number(value.trim()));
const DURATION_SECONDS = Number(env.BENCH_DURATION_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3);
const CEILING_SECONDS = Number(env.BENCH_CEILING_SECONDS ?? 3);
/**
 * 21500: ports 29581..29588 and 30581..30588, clear of the test suites' platforms (offsets listed
 * in test/interop/support/platform.ts) and below Linux's ephemeral range (32768+), where outgoing
 * connections of anything on the machine could already hold the port.
 */
const PORT_OFFSET = Number(env.BENCH_PORT_OFFSET ?? 21_500);
/** The library peer's port: just above the bench's public service ports (29590 by default). */
const PEER_PORT = 8090 + PORT_OFFSET;
/** BENCH_PEER=0: no library peer (and no Attesto/peer ratios). */
const PEER = env.BENCH_PEER !== "0";

const DATABASE_URL = env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? "warn";
/** How the service processes (or the all-in-one) run: compiled JavaScript (default, as `npm start`) or the TypeScript sources under tsx. */
const RUNTIME = env.BENCH_RUNTIME === "tsx" ? "tsx" : "compiled";
const ALL_IN_ONE = process.argv.includes("--all-in-one");
/**
 * `--all-in-one --embedded`: the all-in-one on its embedded database, as `npm start` runs (native
 * PostgreSQL by default; EMBEDDED_DATABASE_ENGINE=pglite for the PGlite fallback).
 */
const EMBEDDED = ALL_IN_ONE && process.argv.includes("--embedded");
/** `--count-queries`: instead of timing, count the database round trips of each flow per service. */
const COUNT_QUERIES = process.argv.includes("--count-queries") || env.BENCH_COUNT_QUERIES === "1";
/** Flows per scenario in --count-queries mode (after 5 uncounted ones that fill caches). */
const COUNTED_FLOWS = 20;
/** `--count-queries` with BENCH_LIST_STATEMENTS=1: also list each statement text and its count per flow. */
const LIST_STATEMENTS = env.BENCH_LIST_STATEMENTS === "1";
/** `--soak`: the bounded load test of soak.ts instead of the measured levels. */
const SOAK = process.argv.includes("--soak");
const ALL_SCENARIOS = [
  "schema-read",
  "issuance-did",
  "issuance-x509",
  "verification-did",
  "verification-x509",
  "holder-receive",
  "holder-present",
];
const SCENARIOS = (env.BENCH_SCENARIOS ?? ALL_SCENARIOS.join(",")).split(",").map((value) => value.trim());
const DEFAULT_PROFILED = ["auth-server", "credential-issuer", "verifier", "trust-registry", "ledger", "holder"];
const PROFILE =
  !env.BENCH_PROFILE || env.BENCH_PROFILE === "0"
    ? []
    : env.BENCH_PROFILE === "1"
      ? DEFAULT_PROFILED
      : env.BENCH_PROFILE.split(",").map((value) => value.trim());
/** Credentials issued before the run, presented round-robin by the verification flows. */
const PRESENTABLE_CREDENTIALS = 32;
/** Credentials in the wallet the holder-present flow presents from (BENCH_HOLDER_WALLET_SIZE). */
const HOLDER_WALLET_SIZE = Number(env.BENCH_HOLDER_WALLET_SIZE ?? 8);
/** Idle memory and CPU are sampled once start-up garbage had time to settle (as the launcher does). */
const IDLE_SETTLE_MS = 5_000;
const IDLE_MEASURE_MS = 5_000;

function validateSettings() {
  const bad = CONCURRENCY.some((value) => !Number.isInteger(value) || value < 1) || !(DURATION_SECONDS > 0);
  if (bad) throw new Error("BENCH_CONCURRENCY must list positive integers and BENCH_DURATION_SECONDS be > 0");
  const unknown = SCENARIOS.filter((name) => !ALL_SCENARIOS.includes(name));
  if (unknown.length > 0) {
    throw new Error(`unknown BENCH_SCENARIOS ${unknown.join(", ")} (known: ${ALL_SCENARIOS.join(", ")})`);
  }
}

/** Issues `count` credentials through the real flow (8 at a time) for the verification flows to present. */
async function issueForPresentation(flow: (sink: (issued: IssuedCredential) => void) => Flow, count: number) {
  const issued: IssuedCredential[] = [];
  const run = flow((credential) => issued.push(credential));
  const http = new HttpClient(8);
  const noTiming = <T>(_name: string, step: () => Promise<T>) => step();
  try {
    for (let batch = 0; batch < count; batch += 8) {
      await Promise.all(Array.from({ length: Math.min(8, count - batch) }, () => run.run(http, noTiming)));
    }
  } finally {
    await http.close();
  }
  return issued;
}

function schemaReadFlow(schemaRegistryUrl: string): Flow {
  const url = `${schemaRegistryUrl}/schemas/university-diploma/v1`;
  return {
    name: "schema document (GET, baseline)",
    steps: ["get"],
    async run(http, step) {
      await step("get", () => http.json("get", "GET", url, 200));
    },
  };
}

/** Heap figures of every started service, from the Prometheus default metrics on its internal port. */
async function heapOf(platform: { urls: Record<string, { internalUrl: string }>; processes: Map<string, number> }) {
  const result: Record<string, { heapUsedMb: number; externalMb: number }> = {};
  const mb = (text: string, name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
    return match ? Math.round(Number(match[1]) / 2 ** 20) : Number.NaN;
  };
  const allInOne = platform.processes.has("all-in-one");
  for (const [name, { internalUrl }] of Object.entries(platform.urls)) {
    if (!allInOne && !platform.processes.has(name)) continue;
    const response = await fetch(`${internalUrl}/metrics`).catch(() => undefined);
    if (!response?.ok) continue;
    const text = await response.text();
    // In the all-in-one process every service reports the same process-wide figures.
    result[allInOne ? "all-in-one" : name] = {
      heapUsedMb: mb(text, "nodejs_heap_size_used_bytes"),
      externalMb: mb(text, "nodejs_external_memory_bytes"),
    };
    if (allInOne) break;
  }
  return result;
}

async function dropSchemas(prefix: string) {
  const database = openDatabase({ url: DATABASE_URL, schema: "public", poolMax: 1 });
  try {
    for (const schema of benchSchemas(prefix)) await database.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await database.close();
  }
}

interface LevelRecord extends LevelResult {
  scenario: string;
  processes: Record<string, ProcessWindow & { cpuMsPerFlow: number }>;
  loadGeneratorCpuSeconds: number;
}

/** BENCH_LIST_STATEMENTS=1: the statements each process sent during the counted flows, per flow. */
function listStatements(flowName: string, counters: Map<string, PgCounter>) {
  for (const [name, counter] of counters) {
    if (counter.texts.size === 0) continue;
    process.stdout.write(`\n${flowName}, ${name}: statements per flow\n`);
    for (const [text, count] of counter.texts) {
      process.stdout.write(
        `  ${(count / COUNTED_FLOWS).toFixed(2).padStart(6)}  ${text.replace(/\s+/g, " ").slice(0, 160)}\n`,
      );
    }
  }
}

/** Internal RPCs each service has answered so far, by `callee method`, from its /metrics. */
async function rpcCallsAnswered(urls: Record<string, { internalUrl: string }>): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [name, { internalUrl }] of Object.entries(urls)) {
    const response = await fetch(`${internalUrl}/metrics`).catch(() => undefined);
    if (!response?.ok) continue;
    for (const [, labels = "", value] of (await response.text()).matchAll(
      /^rpc_server_requests_total\{(.*)\} (\S+)$/gm,
    )) {
      const label = (label: string) => new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1];
      const code = label("code");
      const key = `${name} ${label("method")}${code === "ok" ? "" : `(${code})`}`;
      calls.set(key, (calls.get(key) ?? 0) + Number(value));
    }
  }
  return calls;
}

/**
 * --count-queries: database round trips, statements and transactions per flow, per process; and
 * the internal calls (RPCs) per flow, per callee and method.
 */
async function countQueries(
  flows: Map<string, Flow>,
  counters: Map<string, PgCounter>,
  urls: Record<string, { internalUrl: string }>,
) {
  const http = new HttpClient(1);
  const untimed = <T>(_name: string, step: () => Promise<T>) => step();
  const rows: Array<Array<string | number>> = [];
  const rpcRows: Array<Array<string | number>> = [];
  try {
    for (const flow of flows.values()) {
      for (let i = 0; i < 5; i++) await flow.run(http, untimed);
      // Background work (checkpointers, sweeps) keeps running: count it over the same time idle, then subtract.
      for (const counter of counters.values()) counter.reset();
      const rpcBefore = await rpcCallsAnswered(urls);
      const started = Date.now();
      for (let i = 0; i < COUNTED_FLOWS; i++) await flow.run(http, untimed);
      const elapsedMs = Date.now() - started;
      for (const [key, count] of await rpcCallsAnswered(urls)) {
        const calls = count - (rpcBefore.get(key) ?? 0);
        if (calls > 0) rpcRows.push([flow.name, ...key.split(" "), (calls / COUNTED_FLOWS).toFixed(1)]);
      }
      const during = new Map([...counters].map(([name, counter]) => [name, { ...counter.counts }]));
      if (LIST_STATEMENTS) listStatements(flow.name, counters);
      for (const counter of counters.values()) counter.reset();
      await sleep(elapsedMs);
      for (const [name, counter] of counters) {
        const busy = during.get(name)!;
        const idle = counter.counts;
        const per = (value: number, background: number) => Math.max(0, (value - background) / COUNTED_FLOWS).toFixed(1);
        if (busy.roundTrips - idle.roundTrips <= 0) continue;
        rows.push([
          flow.name,
          name,
          per(busy.roundTrips, idle.roundTrips),
          per(busy.statements, idle.statements),
          per(busy.transactions, idle.transactions),
        ]);
      }
    }
  } finally {
    await http.close();
  }
  process.stdout.write(
    `\nDatabase work per flow (${COUNTED_FLOWS} flows at concurrency 1, background activity over the same time subtracted)\n`,
  );
  process.stdout.write(`${table(["flow", "process", "round trips", "statements", "transactions"], rows)}\n`);
  process.stdout.write(`\nInternal calls per flow (answered by the callee, background calls included)\n`);
  process.stdout.write(`${table(["flow", "callee", "method", "calls"], rpcRows)}\n`);
}

async function main() {
  validateSettings();
  const startedAt = new Date();
  const loadAtStart = loadAverage();
  const schemaPrefix = `bench_${randomBytes(4).toString("hex")}`;
  process.stdout.write(
    `attesto bench: ${ALL_IN_ONE ? "all-in-one process" : "one process per service"} (${RUNTIME === "tsx" ? "tsx" : "compiled JavaScript"}), ${EMBEDDED ? `embedded ${env.EMBEDDED_DATABASE_ENGINE === "pglite" ? "PGlite" : "database (native PostgreSQL unless it fell back)"}` : `PostgreSQL ${DATABASE_URL.replace(/:[^:@/]+@/, ":***@")}`}, ` +
      `${SOAK ? "soak" : `concurrency ${CONCURRENCY.join("/")}, ${DURATION_SECONDS} s per level`}${PROFILE.length ? `, profiling ${PROFILE.join(", ")}` : ""}\n`,
  );
  const platform = await startBenchPlatform({
    allInOne: ALL_IN_ONE,
    databaseUrl: DATABASE_URL,
    portOffset: PORT_OFFSET,
    logLevel: LOG_LEVEL,
    profile: PROFILE,
    schemaPrefix,
    countQueries: COUNT_QUERIES,
    runtime: RUNTIME,
    embedded: EMBEDDED,
    services: BENCH_SERVICES.filter(
      (name) =>
        (name !== "holder" || SCENARIOS.some((s) => s.startsWith("holder-"))) &&
        (name !== "scheduler" || SCENARIOS.some((s) => s.startsWith("verification-") || s === "holder-present")),
    ),
  }).catch(async (error: unknown) => {
    // The services that did start have created their schemas.
    await dropSchemas(schemaPrefix).catch(() => {});
    throw error;
  });
  let peer: RunningPeer | undefined;
  const withPeer = PEER && !SOAK && !COUNT_QUERIES && SCENARIOS.some((scenario) => PEER_SCENARIO[scenario]);
  const backends = new PgBackends(DATABASE_URL);
  /** Whether the PostgreSQL backends serving Attesto are visible (local database) and counted. */
  let countBackends = false;
  const levels: LevelRecord[] = [];
  const idleRssMb: Record<string, number> = {};
  const peakRssMb: Record<string, number> = {};
  /** CPU use of each process while idle (background timers, sweeps, checkpointers), in % of one core. */
  const idleCpuPercent: Record<string, number> = {};
  /** V8 heap in use and memory outside it (Buffers, ArrayBuffers), per service, from its /metrics. */
  let idleHeapMb: Record<string, { heapUsedMb: number; externalMb: number }> = {};
  let profiles: ProfileSummary[] = [];
  /** The measured levels (warm-ups excluded), on the clock CPU profiles use. */
  let measured: ProfileWindow | undefined;
  let failure: unknown;
  try {
    if (withPeer) peer = await startLibraryPeer(PEER_PORT);
    process.stdout.write(
      `platform up (${[...platform.processes.keys()].join(", ")})${peer ? `, library peer at ${peer.url}` : ""}; settling for idle RSS\n`,
    );
    await sleep(IDLE_SETTLE_MS);
    idleHeapMb = await heapOf(platform);
    const idleWatch = watchProcesses(platform.processes);
    await sleep(IDLE_MEASURE_MS);
    for (const [name, window] of idleWatch.stop()) {
      idleRssMb[name] = sampleProcess(platform.processes.get(name)!).rssMb;
      idleCpuPercent[name] = Math.round((window.cpuSeconds / (IDLE_MEASURE_MS / 1000)) * 1000) / 10;
    }

    const { urls } = platform;
    const tenant: BenchTenant = await createBenchTenant(urls, "bench");
    countBackends = await backends.available([...platform.processes.values()]);
    if (!countBackends) process.stdout.write("PostgreSQL backends not visible from here: their CPU is not counted\n");
    if (SOAK) {
      const presentable = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "did", sink),
        PRESENTABLE_CREDENTIALS,
      );
      const databaseUrl = platform.embeddedDatabaseUrl ?? DATABASE_URL;
      const passed = await runSoak({ platform, tenant, databaseUrl, schemaPrefix, presentable });
      if (!passed) process.exitCode = 1;
      return;
    }
    const flows = new Map<string, Flow>();
    if (SCENARIOS.includes("schema-read")) flows.set("schema-read", schemaReadFlow(urls["schema-registry"].publicUrl));
    if (SCENARIOS.includes("issuance-did")) flows.set("issuance-did", issuanceFlow(urls, tenant, "did"));
    if (SCENARIOS.includes("issuance-x509")) flows.set("issuance-x509", issuanceFlow(urls, tenant, "x509"));
    if (SCENARIOS.includes("verification-did")) {
      const credentials = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "did", sink),
        PRESENTABLE_CREDENTIALS,
      );
      flows.set(
        "verification-did",
        verificationFlow(urls, tenant, credentials, { label: "DID-signed", responseMode: "direct_post" }),
      );
    }
    if (SCENARIOS.includes("verification-x509")) {
      const credentials = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "x509", sink),
        PRESENTABLE_CREDENTIALS,
      );
      flows.set(
        "verification-x509",
        verificationFlow(urls, tenant, credentials, { label: "X.509-signed", responseMode: "direct_post.jwt" }),
      );
    }
    if (SCENARIOS.includes("holder-receive")) {
      flows.set("holder-receive", holderReceiveFlow(urls, tenant, await createHolderAccount(urls)));
    }
    if (SCENARIOS.includes("holder-present")) {
      // Its own account: matching reads the whole wallet, so its size must not depend on the receive run.
      const account = await createHolderAccount(urls);
      const received: Array<{ credentialId: string; vct: string }> = [];
      const receive = holderReceiveFlow(urls, tenant, account, (credential) => received.push(credential));
      const http = new HttpClient(4);
      try {
        for (let i = 0; i < HOLDER_WALLET_SIZE; i++) await receive.run(http, (_name, step) => step());
      } finally {
        await http.close();
      }
      const ids = received.map((credential) => credential.credentialId);
      flows.set("holder-present", holderPresentFlow(urls, tenant, account, ids, received[0]!.vct));
    }

    const peerFlows = new Map<string, Flow>();
    if (peer && flows.has("issuance-did")) peerFlows.set("peer-issuance", peerIssuanceFlow(peer.url));
    if (peer && flows.has("verification-did")) {
      const peerUrl = peer.url;
      const credentials = await issueForPresentation(
        (sink) => peerIssuanceFlow(peerUrl, sink),
        PRESENTABLE_CREDENTIALS,
      );
      peerFlows.set(
        "peer-verification",
        verificationFlow(urls, tenant, credentials, {
          label: "library peer",
          responseMode: "direct_post",
          verifierUrl: peerUrl,
        }),
      );
    }

    if (COUNT_QUERIES) {
      await countQueries(flows, platform.counters, platform.urls);
      return;
    }
    /** One measured level of `flow`, with the CPU of `pids` (and of their PostgreSQL backends). */
    const measureLevel = async (scenario: string, flow: Flow, concurrency: number, pids: Map<string, number>) => {
      const watch = watchProcesses(pids);
      const backendWatch = countBackends && !pids.has("library peer") ? backends.watch([...pids.values()]) : undefined;
      await backendWatch?.started;
      const clientCpu = selfCpuSeconds();
      const levelStart = monotonicMicros();
      const result = await runLevel(flow, concurrency, DURATION_SECONDS);
      measured = { startUs: measured?.startUs ?? levelStart, endUs: monotonicMicros() };
      const windows = watch.stop();
      const database = await backendWatch?.stop();
      if (database) windows.set("postgres", { cpuSeconds: database.cpuSeconds, peakRssMb: 0 });
      const processes: LevelRecord["processes"] = {};
      for (const [name, window] of windows) {
        if (name !== "postgres") peakRssMb[name] = Math.max(peakRssMb[name] ?? 0, window.peakRssMb);
        processes[name] = {
          ...window,
          cpuMsPerFlow: result.flows > 0 ? Math.round((window.cpuSeconds / result.flows) * 10_000) / 10 : 0,
        };
      }
      levels.push({
        scenario,
        ...result,
        processes,
        loadGeneratorCpuSeconds: Math.round((selfCpuSeconds() - clientCpu) * 100) / 100,
      });
      process.stdout.write(
        `${flow.name} @ ${concurrency}: ${result.flowsPerSecond} flows/s, p50 ${result.flowLatencyMs.p50} ms, ` +
          `p99 ${result.flowLatencyMs.p99} ms, ${result.errors} errors\n`,
      );
      for (const sample of result.errorSamples) process.stdout.write(`  error x${sample.count}: ${sample.message}\n`);
    };
    const warmUp = async (flow: Flow) => {
      if (WARMUP_SECONDS <= 0) return;
      const warm = await runLevel(flow, Math.min(16, Math.max(...CONCURRENCY)), WARMUP_SECONDS);
      process.stdout.write(`warm-up ${flow.name}: ${warm.flows} flows, ${warm.errors} errors\n`);
      if (warm.errors > 0) process.stdout.write(`  ${JSON.stringify(warm.errorSamples)}\n`);
    };
    for (const [scenario, flow] of flows) {
      await warmUp(flow);
      const peerScenario = PEER_SCENARIO[scenario];
      const peerFlow = peerScenario ? peerFlows.get(peerScenario) : undefined;
      if (peerFlow) await warmUp(peerFlow);
      // Each Attesto level is followed at once by the peer's at the same concurrency: same machine, same minute.
      for (const concurrency of CONCURRENCY) {
        await measureLevel(scenario, flow, concurrency, platform.processes);
        if (peer && peerFlow && peerScenario) {
          await measureLevel(peerScenario, peerFlow, concurrency, new Map([["library peer", peer.pid]]));
        }
      }
    }
  } catch (error) {
    failure = error;
  } finally {
    process.stdout.write("stopping the platform\n");
    await peer?.stop();
    await backends.close().catch(() => {});
    await platform.stop();
    if (platform.profileDir) profiles = summarizeProfiles(platform.profileDir, repoRoot, measured);
    await dropSchemas(schemaPrefix).catch((error: unknown) => {
      process.stderr.write(`could not drop the bench schemas: ${(error as Error).message}\n`);
    });
  }
  if (failure) throw failure;
  if (COUNT_QUERIES || SOAK) return;

  process.stdout.write("measuring the in-process ceiling\n");
  const machine = machineFacts();
  const ceilings: Record<string, CeilingResult> = {};
  const ceilingOf = await ceilingFlows();
  for (const scenario of new Set(levels.map((level) => level.scenario))) {
    const flow = ceilingOf[scenario];
    if (flow) ceilings[scenario] = await measureCeiling(flow, CEILING_SECONDS, machine.cores);
  }

  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() },
    database: "PostgreSQL",
    topology: platform.topology,
    runtime: RUNTIME,
    logLevel: LOG_LEVEL,
    durationSecondsPerLevel: DURATION_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    concurrency: CONCURRENCY,
    memory: { idleRssMb, peakRssMb, idleHeapMb },
    idleCpuPercent,
    postgresBackendsCounted: countBackends,
    ceilings,
    results: levels.map((level) => {
      const ceiling = ceilings[level.scenario];
      return {
        ...level,
        ...(ceiling ? { achievedToCeiling: Math.round((level.flowsPerSecond / ceiling.machine) * 1000) / 1000 } : {}),
      };
    }),
    profiles,
  };
  const withComparisons = { ...report, peerComparisons: comparePeers(report.results) };
  writeFileSync("bench-results.json", `${JSON.stringify(withComparisons, null, 2)}\n`);
  process.stdout.write(`\n${formatReport(report)}\nwrote bench-results.json\n`);
  const errors = levels.reduce((sum, level) => sum + level.errors, 0);
  if (errors > 0) {
    process.stderr.write(`\n${errors} flows failed: the benchmark requires zero errors (see the samples above)\n`);
    process.exitCode = 1;
  }
}

await main();
