import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { NamingClient } from "./named-statements.js";

// Timestamps come back as Date; bigint counts as numbers (our counts stay far below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface DatabaseOptions {
  url: string;
  /** The schema this service owns; every query is qualified with it. */
  schema: string;
  poolMax?: number;
  applicationName?: string;
}

export interface Database<DB> {
  /** Kysely bound to the service's schema (table names are qualified with it). */
  db: Kysely<DB>;
  schema: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * One pg pool and a kysely instance scoped to a schema. Queries are schema-qualified rather than
 * relying on `search_path`, because the embedded PGlite server shares one session between clients.
 * Every parameterised statement runs as a named (server-side prepared) statement: see
 * named-statements.ts.
 */
export function openDatabase<DB>(options: DatabaseOptions): Database<DB> {
  const pool = new pg.Pool({
    Client: NamingClient,
    connectionString: options.url,
    max: options.poolMax ?? 10,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", () => {});
  const root = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    db: root.withSchema(options.schema),
    schema: options.schema,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await root.destroy();
    },
  };
}

/** One round trip to PostgreSQL (through the pool): rejects when the database cannot be reached. */
export async function pingDatabase(db: Kysely<unknown>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
