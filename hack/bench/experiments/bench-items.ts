import { readFileSync } from "node:fs";
import { openDatabase } from "@attesto/store";
import { sql } from "kysely";

/**
 * The statement the per-statement microbenchmarks (statement-cpu.ts, statement-cpu-transport.ts)
 * time: one parameterised indexed read through `openDatabase` (kysely), as the services send it,
 * from a table of 10,000 rows in a schema of its own.
 */
interface Items {
  bench_items: { id: number; tenant: string; body: string };
}

export interface BenchItems {
  db: ReturnType<typeof openDatabase<Items>>["db"];
  /** `n` reads, `concurrency` at a time. */
  reads(n: number): Promise<void>;
  /** Drops the schema and closes the pool. */
  close(): Promise<void>;
}

export async function openBenchItems(url: string, concurrency: number): Promise<BenchItems> {
  const schema = `stmt_cpu_${process.pid}`;
  const database = openDatabase<Items>({ url, schema, poolMax: concurrency });
  const { db } = database;
  const table = sql.id(schema, "bench_items");
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await sql`CREATE TABLE ${table} (id int, tenant text, body text, PRIMARY KEY (id, tenant))`.execute(db);
  await sql`INSERT INTO ${table} SELECT i, 't' || (i % 10), md5(i::text) FROM generate_series(1, 10000) i`.execute(db);
  const read = (i: number) =>
    db
      .selectFrom("bench_items")
      .selectAll()
      .where("id", "=", (i % 10_000) + 1)
      .where("tenant", "=", `t${((i % 10_000) + 1) % 10}`)
      .execute();
  return {
    db,
    async reads(n) {
      let next = 0;
      const loop = async () => {
        while (next < n) await read(next++);
      };
      await Promise.all(Array.from({ length: concurrency }, loop));
    },
    async close() {
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
      await database.close();
    },
  };
}

/** This (main) thread's CPU time in µs (Linux: the first field of its schedstat, in ns); NaN elsewhere. */
export function mainThreadUs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1000;
  } catch {
    return Number.NaN;
  }
}
