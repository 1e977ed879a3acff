import { readFileSync } from "node:fs";
import { openDatabase, startEmbeddedPostgres, startEmbeddedPostgresThread } from "@attesto/store";
import { sql } from "kysely";

/**
 * CPU per statement of one parameterised indexed read through `openDatabase` (kysely), as the
 * services send it. `pg` (DATABASE_URL): the PostgreSQL backend's CPU from /proc/<backend>/stat,
 * and this process's; `embedded`: this process's CPU, PGlite and its wire server included (on
 * this thread here); `embedded-thread`: the same with the database on its own thread, as the
 * all-in-one runs it, split into this (main) thread's CPU and the rest of the process (the
 * database thread, and V8's and libuv's helpers). `tcp` serves the embedded database on loopback
 * TCP instead of its default Unix socket. `concurrency` reads are kept in flight on as many pool
 * connections (default 1). Run it in two trees to compare them.
 *
 *   npx tsx hack/bench/statement-cpu.ts pg|embedded|embedded-thread [statements] [tcp] [concurrency]
 */
interface Items {
  bench_items: { id: number; tenant: string; body: string };
}

const mode = (["embedded", "embedded-thread"] as const).find((m) => m === process.argv[2]) ?? "pg";
const count = Number(process.argv[3] ?? 20_000);
const transport = process.argv[4] === "tcp" ? { host: "127.0.0.1" } : {};
const concurrency = Number(process.argv[5] ?? 1);
const start = mode === "embedded" ? startEmbeddedPostgres : startEmbeddedPostgresThread;
const embedded = mode === "pg" ? undefined : await start(transport);
const url = embedded?.url ?? process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const schema = `stmt_cpu_${process.pid}`;
const database = openDatabase<Items>({ url, schema, poolMax: concurrency });
const { db } = database;
await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
await sql`CREATE TABLE ${sql.id(schema, "bench_items")} (id int, tenant text, body text, PRIMARY KEY (id, tenant))`.execute(
  db,
);
await sql`INSERT INTO ${sql.id(schema, "bench_items")} SELECT i, 't' || (i % 10), md5(i::text) FROM generate_series(1, 10000) i`.execute(
  db,
);
const backendPid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]?.pid;
const ticks = () => {
  if (mode !== "pg") return 0;
  const fields = readFileSync(`/proc/${backendPid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks (1/100 s)
};
const read = (i: number) =>
  db
    .selectFrom("bench_items")
    .selectAll()
    .where("id", "=", (i % 10_000) + 1)
    .where("tenant", "=", `t${((i % 10_000) + 1) % 10}`)
    .execute();

/** This (main) thread's CPU time in µs (Linux: the first field of its schedstat, in ns). */
const mainThreadUs = () => {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1000;
  } catch {
    return Number.NaN;
  }
};
/** `n` reads, `concurrency` at a time. */
const reads = async (n: number) => {
  let next = 0;
  const loop = async () => {
    while (next < n) await read(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
};

await reads(1000);
const backendBefore = ticks();
const mainBefore = mainThreadUs();
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
await reads(count);
const elapsedMs = performance.now() - startedAt;
const cpu = process.cpuUsage(cpuBefore);
const mainUs = (mainThreadUs() - mainBefore) / count;
const backendUs = ((ticks() - backendBefore) * 10_000) / count;
const processUs = (cpu.user + cpu.system) / count;
const rate = `${Math.round((count * 1000) / elapsedMs)}/s`;
const setting = `${count}, c=${concurrency}, ${url.includes("%2F") ? "unix socket" : "tcp"}`;
console.log(
  mode === "pg"
    ? `pg: backend ${backendUs.toFixed(1)} µs, this process ${processUs.toFixed(1)} µs CPU per statement (${count})`
    : mode === "embedded"
      ? `embedded: this process (PGlite included) ${processUs.toFixed(1)} µs CPU per statement, ${rate} (${setting})`
      : `embedded-thread: process ${processUs.toFixed(1)} µs = main thread ${mainUs.toFixed(1)} + database thread and helpers ${(processUs - mainUs).toFixed(1)} µs CPU per statement, ${rate} (${setting})`,
);
await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
await database.close();
await embedded?.close();
