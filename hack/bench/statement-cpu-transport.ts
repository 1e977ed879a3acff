import { readFileSync } from "node:fs";
import { type EmbeddedPostgres, openDatabase, startEmbeddedPostgresThread } from "@attesto/store";
import { sql } from "kysely";

/**
 * CPU per statement of the embedded database on its own thread (as the all-in-one runs it) over
 * loopback TCP against its Unix socket, in one process: two database threads, one per transport,
 * and blocks of reads alternating between them (A, B, A, B, ...), so both see the same machine
 * load. Per transport: the process's CPU (every thread) per statement, split into this (main)
 * thread, where `pg` writes and parses, and the rest (the database thread, V8's and libuv's
 * helpers). The read is statement-cpu.ts's: one parameterised indexed read through kysely.
 *
 *   npx tsx hack/bench/statement-cpu-transport.ts [blocks] [statements per block] [concurrency]
 */
interface Items {
  bench_items: { id: number; tenant: string; body: string };
}

const blocks = Number(process.argv[2] ?? 10);
const perBlock = Number(process.argv[3] ?? 4000);
const concurrency = Number(process.argv[4] ?? 1);

/** This (main) thread's CPU time in µs (Linux: the first field of its schedstat, in ns). */
const mainThreadUs = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1000;

async function side(name: string, server: EmbeddedPostgres) {
  const schema = `stmt_cpu_${process.pid}`;
  const database = openDatabase<Items>({ url: server.url, schema, poolMax: concurrency });
  const { db } = database;
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await sql`CREATE TABLE ${sql.id(schema, "bench_items")} (id int, tenant text, body text, PRIMARY KEY (id, tenant))`.execute(
    db,
  );
  await sql`INSERT INTO ${sql.id(schema, "bench_items")} SELECT i, 't' || (i % 10), md5(i::text) FROM generate_series(1, 10000) i`.execute(
    db,
  );
  const read = (i: number) =>
    db
      .selectFrom("bench_items")
      .selectAll()
      .where("id", "=", (i % 10_000) + 1)
      .where("tenant", "=", `t${((i % 10_000) + 1) % 10}`)
      .execute();
  const reads = async (n: number) => {
    let next = 0;
    const loop = async () => {
      while (next < n) await read(next++);
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  };
  const totals = { processUs: 0, mainUs: 0, ms: 0, statements: 0 };
  return {
    name,
    totals,
    warm: () => reads(1000),
    async block() {
      const main = mainThreadUs();
      const cpu = process.cpuUsage();
      const started = performance.now();
      await reads(perBlock);
      totals.ms += performance.now() - started;
      const used = process.cpuUsage(cpu);
      totals.processUs += used.user + used.system;
      totals.mainUs += mainThreadUs() - main;
      totals.statements += perBlock;
    },
    async close() {
      await database.close();
      await server.close();
    },
  };
}

const tcp = await side("tcp", await startEmbeddedPostgresThread({ host: "127.0.0.1" }));
const unixServer = await startEmbeddedPostgresThread();
if (!unixServer.url.includes("@%2F")) throw new Error(`no Unix socket here: ${unixServer.url}`);
const unix = await side("unix socket", unixServer);
for (const s of [tcp, unix]) await s.warm();
for (let i = 0; i < blocks; i++) {
  // Alternate which goes first, so neither always follows the other's garbage.
  for (const s of i % 2 === 0 ? [tcp, unix] : [unix, tcp]) await s.block();
}
for (const { name, totals } of [tcp, unix]) {
  const per = (us: number) => (us / totals.statements).toFixed(1);
  console.log(
    `${name.padEnd(11)}: process ${per(totals.processUs)} µs = main thread ${per(totals.mainUs)} + database thread and helpers ${per(totals.processUs - totals.mainUs)} µs CPU per statement, ${Math.round((totals.statements * 1000) / totals.ms)}/s (${totals.statements}, c=${concurrency})`,
  );
}
await tcp.close();
await unix.close();
