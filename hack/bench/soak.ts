/**
 * `npm run bench -- --soak`: a bounded load test. Drives DID issuance, X.509 issuance and DID
 * verification together for BENCH_SOAK_SECONDS (default 300) at BENCH_SOAK_CONCURRENCY (default
 * 24, split across the three flows), samples every service's RSS, and afterwards asserts: zero
 * errors, no service grew by more than BENCH_SOAK_MAX_RSS_GROWTH_MB (default 64) between the
 * first and the last fifth of the run, every issued credential is in the issuer's database and
 * every completed verification is stored as completed, and no session was left `in_progress`.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { openDatabase } from "@attesto/store";
import { type BenchTenant, type Flow, type IssuedCredential, issuanceFlow, verificationFlow } from "./flows.js";
import { loadAverage, machineFacts, sampleProcess } from "./proc-stats.js";
import { table } from "./report.js";
import { type LevelResult, runLevel } from "./runner.js";
import { type RunningPlatform, schemaOf } from "./topology.js";

const env = process.env;
const SECONDS = Number(env.BENCH_SOAK_SECONDS ?? 300);
const CONCURRENCY = Number(env.BENCH_SOAK_CONCURRENCY ?? 24);
const MAX_RSS_GROWTH_MB = Number(env.BENCH_SOAK_MAX_RSS_GROWTH_MB ?? 64);
const SAMPLE_INTERVAL_MS = 5_000;

export interface SoakOptions {
  platform: RunningPlatform;
  tenant: BenchTenant;
  databaseUrl: string;
  schemaPrefix: string;
  /** Credentials issued through the real flow, for the verification flow to present. */
  presentable: IssuedCredential[];
}

interface RssSeries {
  atSeconds: number[];
  rssMb: Record<string, number[]>;
}

const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

/** RSS of every service process every 5 s until stopped. */
function sampleRss(processes: Map<string, number>, startedAt: number) {
  const series: RssSeries = { atSeconds: [], rssMb: Object.fromEntries([...processes.keys()].map((n) => [n, []])) };
  const take = () => {
    series.atSeconds.push(Math.round((performance.now() - startedAt) / 1000));
    for (const [name, pid] of processes) series.rssMb[name]!.push(sampleProcess(pid).rssMb);
  };
  take();
  const timer = setInterval(take, SAMPLE_INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      take();
      return series;
    },
  };
}

/** Peak RSS per process in the first and the last fifth of the run, and the growth between them. */
function memoryVerdict(series: RssSeries) {
  const total = series.atSeconds.at(-1) ?? 0;
  const inWindow = (from: number, to: number) =>
    series.atSeconds.map((at, index) => (at >= from && at <= to ? index : -1)).filter((index) => index >= 0);
  const early = inWindow(total * 0.1, total * 0.3);
  const late = inWindow(total * 0.8, total);
  return Object.entries(series.rssMb).map(([name, values]) => {
    const earlyPeak = Math.max(...early.map((index) => values[index]!));
    const latePeak = Math.max(...late.map((index) => values[index]!));
    return { process: name, earlyPeakMb: earlyPeak, latePeakMb: latePeak, growthMb: latePeak - earlyPeak };
  });
}

/** How many of the issued credentials and completed verifications the databases hold. */
async function checkRecords(options: SoakOptions, issuedDigests: string[], verifiedSessions: string[]) {
  const database = openDatabase({ url: options.databaseUrl, schema: "public", poolMax: 1 });
  try {
    const issuer = schemaOf(options.schemaPrefix, "credential-issuer");
    const verifier = schemaOf(options.schemaPrefix, "verifier");
    const credentials = await database.pool.query<{ count: string }>(
      `SELECT count(*) FROM "${issuer}".credentials WHERE issuer_jwt_sha256 = ANY($1::text[])`,
      [issuedDigests],
    );
    const completed = await database.pool.query<{ count: string }>(
      `SELECT count(*) FROM "${verifier}".verification_sessions WHERE id::text = ANY($1::text[]) AND status = 'completed'`,
      [verifiedSessions],
    );
    const stuck = await database.pool.query<{ count: string }>(
      `SELECT count(*) FROM "${verifier}".verification_sessions WHERE status = 'in_progress'`,
    );
    return {
      credentialsIssued: issuedDigests.length,
      credentialsStored: Number(credentials.rows[0]!.count),
      verificationsCompleted: verifiedSessions.length,
      verificationsStoredCompleted: Number(completed.rows[0]!.count),
      sessionsInProgress: Number(stuck.rows[0]!.count),
    };
  } finally {
    await database.close();
  }
}

/**
 * Dead rows left after the run, per table of this run's schemas (pg_stat_user_tables): what VACUUM
 * has not reclaimed yet, with when autovacuum and autoanalyze last ran on the table. On native
 * PostgreSQL autovacuum works through them as they pile up; the PGlite fallback has no autovacuum
 * (the launcher vacuums it every 10 minutes).
 */
async function deadRows(options: SoakOptions) {
  const database = openDatabase({ url: options.databaseUrl, schema: "public", poolMax: 1 });
  try {
    const { rows } = await database.pool.query<{
      table: string;
      live: string;
      dead: string;
      autovacuums: string;
      vacuums: string;
      last_autovacuum: Date | null;
      last_autoanalyze: Date | null;
    }>(
      `SELECT schemaname || '.' || relname AS table, n_live_tup AS live, n_dead_tup AS dead,
              autovacuum_count + autoanalyze_count AS autovacuums, vacuum_count AS vacuums,
              last_autovacuum, last_autoanalyze
         FROM pg_stat_user_tables WHERE schemaname LIKE $1 ORDER BY n_dead_tup DESC, 1`,
      [`${options.schemaPrefix}\\_%`],
    );
    const sum = (key: "live" | "dead" | "autovacuums" | "vacuums") =>
      rows.reduce((total, row) => total + Number(row[key]), 0);
    return {
      live: sum("live"),
      dead: sum("dead"),
      autovacuumRuns: sum("autovacuums"),
      vacuumRuns: sum("vacuums"),
      tables: rows.map((row) => ({
        table: row.table.slice(options.schemaPrefix.length + 1),
        live: Number(row.live),
        dead: Number(row.dead),
        autovacuumRuns: Number(row.autovacuums),
        lastAutovacuum: row.last_autovacuum?.toISOString() ?? null,
        lastAutoanalyze: row.last_autoanalyze?.toISOString() ?? null,
      })),
    };
  } finally {
    await database.close();
  }
}

/** Runs the soak; returns false (after printing why) when any assertion fails. */
export async function runSoak(options: SoakOptions): Promise<boolean> {
  const { platform, tenant } = options;
  const issuedDigests: string[] = [];
  const verifiedSessions: string[] = [];
  const recordIssued = (issued: IssuedCredential) => issuedDigests.push(sha256Hex(issued.credential.split("~")[0]!));
  const flows: Flow[] = [
    issuanceFlow(platform.urls, tenant, "did", recordIssued),
    issuanceFlow(platform.urls, tenant, "x509", recordIssued),
    verificationFlow(platform.urls, tenant, options.presentable, {
      label: "DID-signed",
      responseMode: "direct_post",
      onVerified: (sessionId) => verifiedSessions.push(sessionId),
    }),
  ];
  const perFlow = Math.max(1, Math.floor(CONCURRENCY / flows.length));
  process.stdout.write(
    `soak: ${flows.map((flow) => flow.name).join(" + ")} at concurrency ${perFlow} each for ${SECONDS} s\n`,
  );
  const startedAt = performance.now();
  const rss = sampleRss(platform.processes, startedAt);
  const loadAtStart = loadAverage();
  const results: LevelResult[] = await Promise.all(flows.map((flow) => runLevel(flow, perFlow, SECONDS))).catch(
    (error: unknown) => {
      rss.stop();
      throw error;
    },
  );
  const series = rss.stop();
  const memory = memoryVerdict(series);
  const records = await checkRecords(options, issuedDigests, verifiedSessions);
  const dead = await deadRows(options);
  const errors = results.reduce((sum, result) => sum + result.errors, 0);

  process.stdout.write(
    `\n${table(
      ["flow", "flows", "flows/s", "p50 ms", "p99 ms", "errors"],
      results.map((r) => [r.flow, r.flows, r.flowsPerSecond, r.flowLatencyMs.p50, r.flowLatencyMs.p99, r.errors]),
    )}\n`,
  );
  for (const result of results) {
    for (const sample of result.errorSamples) process.stdout.write(`  error x${sample.count}: ${sample.message}\n`);
  }
  process.stdout.write(
    `\nRSS (MB): peak in 10-30 % of the run vs the last 20 % (bound: +${MAX_RSS_GROWTH_MB} MB)\n${table(
      ["process", "early peak", "late peak", "growth"],
      memory.map((m) => [m.process, m.earlyPeakMb, m.latePeakMb, m.growthMb]),
    )}\n`,
  );
  process.stdout.write(
    `\nRecords: ${records.credentialsStored}/${records.credentialsIssued} issued credentials stored, ` +
      `${records.verificationsStoredCompleted}/${records.verificationsCompleted} completed verifications stored as completed, ` +
      `${records.sessionsInProgress} sessions in_progress\n`,
  );

  process.stdout.write(
    `Dead rows after the run: ${dead.dead} (live ${dead.live}); autovacuum/autoanalyze runs ${dead.autovacuumRuns}, ` +
      `VACUUM runs ${dead.vacuumRuns}; tables with rows (at ${new Date().toISOString()}):\n${table(
        ["table", "live", "dead", "auto runs", "last autovacuum", "last autoanalyze"],
        dead.tables
          .filter((t) => t.live > 0 || t.dead > 0)
          .map((t) => [t.table, t.live, t.dead, t.autovacuumRuns, t.lastAutovacuum ?? "-", t.lastAutoanalyze ?? "-"]),
      )}\n`,
  );

  const failures = [
    ...(errors > 0 ? [`${errors} flows failed`] : []),
    ...memory
      .filter((m) => m.growthMb > MAX_RSS_GROWTH_MB)
      .map((m) => `${m.process} RSS grew by ${m.growthMb} MB (bound ${MAX_RSS_GROWTH_MB} MB)`),
    ...(records.credentialsStored !== records.credentialsIssued
      ? ["issued credentials are missing from the database"]
      : []),
    ...(records.verificationsStoredCompleted !== records.verificationsCompleted
      ? ["completed verifications are missing or not completed in the database"]
      : []),
    ...(records.sessionsInProgress > 0
      ? [`${records.sessionsInProgress} verification sessions stuck in_progress`]
      : []),
  ];
  const report = {
    startedAt: new Date(Date.now() - (performance.now() - startedAt)).toISOString(),
    machine: { ...machineFacts(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAverage() },
    seconds: SECONDS,
    concurrencyPerFlow: perFlow,
    maxRssGrowthMb: MAX_RSS_GROWTH_MB,
    results,
    memory,
    rssSeries: series,
    records,
    deadRows: dead,
    failures,
  };
  writeFileSync("bench-soak.json", `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote bench-soak.json\n`);
  if (failures.length > 0) {
    process.stderr.write(`\nsoak FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}\n`);
    return false;
  }
  process.stdout.write("\nsoak passed: zero errors, memory bounded, every record present\n");
  return true;
}
