/**
 * `npm run bench:experiment -- cache-barrier [concurrency] [requests]`: what a coherent cache's
 * barrier costs (`@attesto/store` cache-invalidations.ts), on the PostgreSQL at DATABASE_URL.
 *
 * 1. One round trip on a listening connection, `SELECT 1` against a bare protocol Sync: process
 *    CPU and the backend's CPU from `/proc` (the database must be local), per trip.
 * 2. Barriers per request under concurrency: `concurrency` workers each run requests of one pool
 *    statement followed by a cached read's barrier, `barrier()` at the read (per read) against
 *    `barrier(since)` with `since` taken when the request began (a trip another request sent
 *    meanwhile serves it). Barrier round trips, process CPU (statement included) and the listening
 *    backend's CPU per request.
 *
 * Alternating rounds, medians. Defaults: 16 workers, 3000 requests per round.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { startCacheInvalidations } from "../../../services/lib/store/src/cache-invalidations.js";

const url = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const concurrency = Number(process.argv[2] ?? 16);
const requests = Number(process.argv[3] ?? 3000);
const ROUNDS = 6;

const cpuMsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const processUs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const backendPid = async (client: pg.Client) =>
  Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);

/** The barrier's Sync round trip, as cache-invalidations.ts sends it. */
class SyncRoundTrip implements pg.Submittable {
  readonly done: Promise<void>;
  private settle: (error?: Error) => void = () => undefined;
  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
  }
  submit(connection: pg.Connection) {
    connection.sync();
  }
  handleReadyForQuery() {
    this.settle();
  }
  handleError(error: Error) {
    this.settle(error);
  }
}

async function tripCost() {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("LISTEN attesto_cache");
  const pid = await backendPid(client);
  const trips = 3000;
  const run = async (kind: "SELECT 1" | "Sync") => {
    const backend = cpuMsOf(pid);
    const started = process.cpuUsage();
    for (let i = 0; i < trips; i++) {
      if (kind === "Sync") await client.query(new SyncRoundTrip()).done;
      else await client.query("SELECT 1");
    }
    return { client: processUs(started) / trips, backend: ((cpuMsOf(pid) - backend) * 1000) / trips };
  };
  const results: Record<string, Array<{ client: number; backend: number }>> = { "SELECT 1": [], Sync: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 ? (["Sync", "SELECT 1"] as const) : (["SELECT 1", "Sync"] as const)) {
      results[kind]!.push(await run(kind));
    }
  }
  await client.end();
  process.stdout.write("one barrier round trip (µs CPU, medians):\n");
  for (const [kind, rows] of Object.entries(results)) {
    const client = median(rows.map((row) => row.client)).toFixed(1);
    const backend = median(rows.map((row) => row.backend)).toFixed(1);
    process.stdout.write(`  ${kind.padEnd(9)} client ${client}, backend ${backend}\n`);
  }
}

async function perRequest() {
  const invalidations = startCacheInvalidations({ url, applicationName: "cache-barrier-experiment" });
  while (invalidations.state === "connecting") await new Promise((resolve) => setTimeout(resolve, 50));
  if (invalidations.state !== "coherent")
    throw new Error(`the database does not deliver notifications (${invalidations.state})`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const pid = Number(
    (
      await admin.query(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'cache-barrier-experiment' ORDER BY backend_start DESC LIMIT 1",
      )
    ).rows[0].pid,
  );
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  const run = async (mode: "per read" | "since") => {
    let left = requests;
    const trips = invalidations.roundTrips;
    const backend = cpuMsOf(pid);
    const started = process.cpuUsage();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) {
          const since = performance.now();
          await pool.query("SELECT $1::int AS x", [1]);
          const barrier = mode === "since" ? invalidations.barrier(since) : invalidations.barrier();
          if (!(await barrier)) throw new Error("the listener is not coherent");
        }
      }),
    );
    return {
      trips: (invalidations.roundTrips - trips) / requests,
      process: processUs(started) / requests,
      backend: ((cpuMsOf(pid) - backend) * 1000) / requests,
    };
  };
  const results: Record<string, Array<{ trips: number; process: number; backend: number }>> = {
    "per read": [],
    since: [],
  };
  await run("per read");
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? (["since", "per read"] as const) : (["per read", "since"] as const)) {
      results[mode]!.push(await run(mode));
    }
  }
  process.stdout.write(`barriers per request, c=${concurrency} (medians):\n`);
  for (const [mode, rows] of Object.entries(results)) {
    const trips = median(rows.map((row) => row.trips)).toFixed(3);
    const cpu = median(rows.map((row) => row.process)).toFixed(1);
    const backend = median(rows.map((row) => row.backend)).toFixed(1);
    process.stdout.write(
      `  ${mode.padEnd(9)} round trips ${trips}, process µs ${cpu} (statement included), listening backend µs ${backend}\n`,
    );
  }
  await pool.end();
  await admin.end();
  await invalidations.close();
}

await tripCost();
await perRequest();
