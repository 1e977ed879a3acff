import { readFileSync } from "node:fs";
import { openDatabase, startEmbeddedPostgres } from "@attesto/store";
import { sql } from "kysely";

/**
 * CPU per statement of one parameterised indexed read through `openDatabase` (kysely, one pool
 * connection), as the services send it. `pg` (DATABASE_URL): the PostgreSQL backend's CPU from
 * /proc/<backend>/stat, and this process's; `embedded`: this process's CPU, PGlite and its wire
 * server included (in this process here). Run it in two trees to compare them.
 *
 *   npx tsx hack/bench/statement-cpu.ts pg|embedded [statements]
 */
interface Items {
  bench_items: { id: number; tenant: string; body: string };
}

const mode = process.argv[2] === "embedded" ? "embedded" : "pg";
const count = Number(process.argv[3] ?? 20_000);
const embedded = mode === "embedded" ? await startEmbeddedPostgres() : undefined;
const url = embedded?.url ?? process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const schema = `stmt_cpu_${process.pid}`;
const database = openDatabase<Items>({ url, schema, poolMax: 1 });
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

for (let i = 0; i < 1000; i++) await read(i);
const backendBefore = ticks();
const cpuBefore = process.cpuUsage();
for (let i = 0; i < count; i++) await read(i);
const cpu = process.cpuUsage(cpuBefore);
const backendUs = ((ticks() - backendBefore) * 10_000) / count;
const processUs = (cpu.user + cpu.system) / count;
console.log(
  mode === "pg"
    ? `pg: backend ${backendUs.toFixed(1)} µs, this process ${processUs.toFixed(1)} µs CPU per statement (${count})`
    : `embedded: this process (PGlite included) ${processUs.toFixed(1)} µs CPU per statement (${count})`,
);
await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
await database.close();
await embedded?.close();
