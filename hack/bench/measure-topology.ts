/**
 * One topology of the bench: starts the platform (one process per service on PostgreSQL, or the
 * all-in-one, on external PostgreSQL or its embedded database), warms each flow up until its CPU
 * per flow has settled (warm-up.ts), and runs the planned levels, each Attesto level followed at
 * once by the library peer's at the same concurrency. CPU per flow counts every Attesto process
 * and its descendants (the native embedded PostgreSQL) and, on external PostgreSQL, the backends
 * serving it (pg-backends.ts). Modes: `countQueries` counts database round trips per flow instead
 * of timing; `soak` runs the bounded load test of soak.ts.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "@attesto/store";
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
import { PEER_SCENARIO, type Report, table } from "./report.js";
import { type LevelResult, runLevel } from "./runner.js";
import { runSoak } from "./soak.js";
import {
  BENCH_SERVICES,
  benchSchemas,
  type RunningPeer,
  repoRoot,
  startBenchPlatform,
  v8EventsOf,
} from "./topology.js";
import { describeWarmUp, type WarmUpResult, type WarmUpSettings, warmUp } from "./warm-up.js";

export const ALL_SCENARIOS = [
  "schema-read",
  "issuance-did",
  "issuance-x509",
  "verification-did",
  "verification-x509",
  "holder-receive",
  "holder-present",
];

export interface TopologySettings {
  allInOne: boolean;
  /** The all-in-one on its embedded database, as `npm start` runs (native PostgreSQL unless it fell back to PGlite). */
  embedded: boolean;
  /** How the services run: compiled JavaScript (as `npm start`) or the TypeScript sources under tsx. */
  runtime: "compiled" | "tsx";
  databaseUrl: string;
  portOffset: number;
  logLevel: string;
  /** The measured levels: concurrencies per scenario, in order. */
  plan: Array<{ scenario: string; concurrency: number[] }>;
  durationSeconds: number;
  warmUp: WarmUpSettings;
  /** Services to run under `node --cpu-prof`. */
  profile: string[];
  countQueries: boolean;
  listStatements: boolean;
  soak: boolean;
  holderWalletSize: number;
}

export interface LevelRecord extends LevelResult {
  scenario: string;
  processes: Record<string, ProcessWindow & { cpuMsPerFlow: number }>;
  loadGeneratorCpuSeconds: number;
}

export interface TopologyReport extends Report {
  startedAt: string;
  finishedAt: string;
  warmUps: WarmUpResult[];
  postgresBackendsCounted: boolean;
  /** Flows that failed, in warm-up windows and measured levels. */
  errors: number;
}

/** Flows per scenario in --count-queries mode (after 5 uncounted ones that fill caches). */
const COUNTED_FLOWS = 20;
/** Credentials issued before the run, presented round-robin by the verification flows. */
const PRESENTABLE_CREDENTIALS = 32;
/** Idle memory and CPU are sampled once start-up garbage had time to settle (as the launcher does). */
const IDLE_SETTLE_MS = 5_000;
const IDLE_MEASURE_MS = 5_000;

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

async function dropSchemas(prefix: string, url: string) {
  const database = openDatabase({ url, schema: "public", poolMax: 1 });
  try {
    for (const schema of benchSchemas(prefix)) await database.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await database.close();
  }
}

/** listStatements: the statements each process sent during the counted flows, per flow. */
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
  list: boolean,
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
      if (list) listStatements(flow.name, counters);
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

const describeTopology = (settings: TopologySettings) =>
  `${settings.allInOne ? "all-in-one process" : "one process per service"} (${settings.runtime === "tsx" ? "tsx" : "compiled JavaScript"}), ${
    settings.embedded
      ? `embedded ${process.env.EMBEDDED_DATABASE_ENGINE === "pglite" ? "PGlite" : "database (native PostgreSQL unless it fell back)"}`
      : `PostgreSQL ${settings.databaseUrl.replace(/:[^:@/]+@/, ":***@")}`
  }`;

/**
 * Runs one topology. `peer`, when given, is warmed and measured beside each Attesto scenario that
 * has a peer counterpart (PEER_SCENARIO). Returns undefined in the count-queries and soak modes
 * (they print their own results; a failed soak sets process.exitCode).
 */
export async function measureTopology(
  settings: TopologySettings,
  peer: RunningPeer | undefined,
): Promise<TopologyReport | undefined> {
  const scenarios = settings.plan.map((entry) => entry.scenario);
  const unknown = scenarios.filter((name) => !ALL_SCENARIOS.includes(name));
  if (unknown.length > 0) {
    throw new Error(`unknown BENCH_SCENARIOS ${unknown.join(", ")} (known: ${ALL_SCENARIOS.join(", ")})`);
  }
  const startedAt = new Date();
  const loadAtStart = loadAverage();
  const schemaPrefix = `bench_${randomBytes(4).toString("hex")}`;
  const levelsText = settings.plan.map((entry) => `${entry.scenario} @ ${entry.concurrency.join("/")}`).join(", ");
  process.stdout.write(
    `\n== ${describeTopology(settings)}: ${settings.soak ? "soak" : `${levelsText}, ${settings.durationSeconds} s per level`}` +
      `${settings.profile.length ? `, profiling ${settings.profile.join(", ")}` : ""}\n`,
  );
  const platform = await startBenchPlatform({
    allInOne: settings.allInOne,
    databaseUrl: settings.databaseUrl,
    portOffset: settings.portOffset,
    logLevel: settings.logLevel,
    profile: settings.profile,
    schemaPrefix,
    countQueries: settings.countQueries,
    runtime: settings.runtime,
    embedded: settings.embedded,
    services: BENCH_SERVICES.filter(
      (name) =>
        (name !== "holder" || scenarios.some((s) => s.startsWith("holder-"))) &&
        (name !== "scheduler" || scenarios.some((s) => s.startsWith("verification-") || s === "holder-present")),
    ),
  }).catch(async (error: unknown) => {
    // The services that did start have created their schemas.
    if (!settings.embedded) await dropSchemas(schemaPrefix, settings.databaseUrl).catch(() => {});
    throw error;
  });
  const withPeer = peer && !settings.soak && !settings.countQueries ? peer : undefined;
  /** The PostgreSQL backends serving Attesto (external PostgreSQL on this machine); the embedded one is a descendant. */
  const backends = settings.embedded ? undefined : new PgBackends(settings.databaseUrl);
  let countBackends = false;
  const levels: LevelRecord[] = [];
  const warmUps: WarmUpResult[] = [];
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
    process.stdout.write(`platform up (${[...platform.processes.keys()].join(", ")}); settling for idle RSS\n`);
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
    if (backends) {
      countBackends = await backends.available([...platform.processes.values()]);
      if (!countBackends) process.stdout.write("PostgreSQL backends not visible from here: their CPU is not counted\n");
    }
    if (settings.soak) {
      const presentable = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "did", sink),
        PRESENTABLE_CREDENTIALS,
      );
      const databaseUrl = platform.embeddedDatabaseUrl ?? settings.databaseUrl;
      const passed = await runSoak({ platform, tenant, databaseUrl, schemaPrefix, presentable });
      if (!passed) process.exitCode = 1;
      return undefined;
    }
    const flows = new Map<string, Flow>();
    if (scenarios.includes("schema-read")) flows.set("schema-read", schemaReadFlow(urls["schema-registry"].publicUrl));
    if (scenarios.includes("issuance-did")) flows.set("issuance-did", issuanceFlow(urls, tenant, "did"));
    if (scenarios.includes("issuance-x509")) flows.set("issuance-x509", issuanceFlow(urls, tenant, "x509"));
    if (scenarios.includes("verification-did")) {
      const credentials = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "did", sink),
        PRESENTABLE_CREDENTIALS,
      );
      flows.set(
        "verification-did",
        verificationFlow(urls, tenant, credentials, { label: "DID-signed", responseMode: "direct_post" }),
      );
    }
    if (scenarios.includes("verification-x509")) {
      const credentials = await issueForPresentation(
        (sink) => issuanceFlow(urls, tenant, "x509", sink),
        PRESENTABLE_CREDENTIALS,
      );
      flows.set(
        "verification-x509",
        verificationFlow(urls, tenant, credentials, { label: "X.509-signed", responseMode: "direct_post.jwt" }),
      );
    }
    if (scenarios.includes("holder-receive")) {
      flows.set("holder-receive", holderReceiveFlow(urls, tenant, await createHolderAccount(urls)));
    }
    if (scenarios.includes("holder-present")) {
      // Its own account: matching reads the whole wallet, so its size must not depend on the receive run.
      const account = await createHolderAccount(urls);
      const received: Array<{ credentialId: string; vct: string }> = [];
      const receive = holderReceiveFlow(urls, tenant, account, (credential) => received.push(credential));
      const http = new HttpClient(4);
      try {
        for (let i = 0; i < settings.holderWalletSize; i++) await receive.run(http, (_name, step) => step());
      } finally {
        await http.close();
      }
      const ids = received.map((credential) => credential.credentialId);
      flows.set("holder-present", holderPresentFlow(urls, tenant, account, ids, received[0]!.vct));
    }

    const peerFlows = new Map<string, Flow>();
    if (withPeer && flows.has("issuance-did")) peerFlows.set("peer-issuance", peerIssuanceFlow(withPeer.url));
    if (withPeer && flows.has("verification-did")) {
      const credentials = await issueForPresentation(
        (sink) => peerIssuanceFlow(withPeer.url, sink),
        PRESENTABLE_CREDENTIALS,
      );
      peerFlows.set(
        "peer-verification",
        verificationFlow(urls, tenant, credentials, {
          label: "library peer",
          responseMode: "direct_post",
          verifierUrl: withPeer.url,
        }),
      );
    }

    if (settings.countQueries) {
      await countQueries(flows, platform.counters, platform.urls, settings.listStatements);
      return undefined;
    }
    const peerPids = withPeer ? new Map([["library peer", withPeer.pid]]) : new Map<string, number>();
    /** Starts watching the CPU of `pids` (and, for Attesto on external PostgreSQL, of the backends serving them). */
    const cpuWatch = async (pids: Map<string, number>) => {
      const watch = watchProcesses(pids);
      const backendWatch = countBackends && !pids.has("library peer") ? backends?.watch([...pids.values()]) : undefined;
      await backendWatch?.started;
      return async () => {
        const windows = watch.stop();
        const database = await backendWatch?.stop();
        if (database) windows.set("postgres", { cpuSeconds: database.cpuSeconds, peakRssMb: 0 });
        return windows;
      };
    };
    /** One measured level of `flow`, with the CPU of `pids` (and of their PostgreSQL backends). */
    const measureLevel = async (scenario: string, flow: Flow, concurrency: number, pids: Map<string, number>) => {
      const stop = await cpuWatch(pids);
      const clientCpu = selfCpuSeconds();
      const levelStart = monotonicMicros();
      const result = await runLevel(flow, concurrency, settings.durationSeconds);
      measured = { startUs: measured?.startUs ?? levelStart, endUs: monotonicMicros() };
      const windows = await stop();
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
    const warm = async (flow: Flow, concurrency: number, pids: Map<string, number>) => {
      if (settings.warmUp.maxSeconds <= 0) return;
      const result = await warmUp(
        flow,
        concurrency,
        settings.warmUp,
        async () => {
          const stop = await cpuWatch(pids);
          return async () => [...(await stop()).values()].reduce((sum, window) => sum + window.cpuSeconds, 0);
        },
        () => v8EventsOf([...pids.values()]),
      );
      warmUps.push(result);
      process.stdout.write(`${describeWarmUp(result)}\n`);
      for (const sample of result.errorSamples) process.stdout.write(`  error x${sample.count}: ${sample.message}\n`);
    };
    for (const { scenario, concurrency: levelsOf } of settings.plan) {
      const flow = flows.get(scenario)!;
      const peerScenario = PEER_SCENARIO[scenario];
      const peerFlow = peerScenario ? peerFlows.get(peerScenario) : undefined;
      const warmConcurrency = Math.min(16, Math.max(...levelsOf));
      await warm(flow, warmConcurrency, platform.processes);
      if (peerFlow) await warm(peerFlow, warmConcurrency, peerPids);
      // Each Attesto level is followed at once by the peer's at the same concurrency: same machine, same minute.
      for (const concurrency of levelsOf) {
        await measureLevel(scenario, flow, concurrency, platform.processes);
        if (peerFlow && peerScenario) await measureLevel(peerScenario, peerFlow, concurrency, peerPids);
      }
    }
  } catch (error) {
    failure = error;
  } finally {
    process.stdout.write("stopping the platform\n");
    await backends?.close().catch(() => {});
    await platform.stop();
    if (platform.profileDir) profiles = summarizeProfiles(platform.profileDir, repoRoot, measured);
    if (!settings.embedded) {
      await dropSchemas(schemaPrefix, settings.databaseUrl).catch((error: unknown) => {
        process.stderr.write(`could not drop the bench schemas: ${(error as Error).message}\n`);
      });
    }
  }
  if (failure) throw failure;
  if (settings.countQueries || settings.soak) return undefined;
  const errors =
    levels.reduce((sum, level) => sum + level.errors, 0) + warmUps.reduce((sum, warmed) => sum + warmed.errors, 0);
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machineFacts(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() },
    database: settings.embedded ? "embedded" : "PostgreSQL",
    topology: `${platform.topology}${settings.embedded ? ", embedded database" : ", external PostgreSQL"}`,
    runtime: settings.runtime,
    logLevel: settings.logLevel,
    durationSecondsPerLevel: settings.durationSeconds,
    memory: { idleRssMb, peakRssMb, idleHeapMb },
    idleCpuPercent,
    postgresBackendsCounted: countBackends,
    warmUps,
    results: levels,
    profiles,
    errors,
  };
}
