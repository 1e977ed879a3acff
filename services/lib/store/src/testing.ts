import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type pg from "pg";
import { type DatabaseInvalidations, startCacheInvalidations } from "./cache-invalidations.js";
import { type Database, openDatabase } from "./database.js";
import { type Migrations, migrateToLatest } from "./migrate.js";

/** Set by the test suite's global setup when it started an embedded PGlite server. */
export const EMBEDDED_TEST_DATABASE_URL_VAR = "ATTESTO_TEST_DATABASE_URL";

/** The database tests run on: DATABASE_URL (real PostgreSQL) when set, else the embedded PGlite server. */
export function testDatabaseUrl(): string {
  const url = process.env.DATABASE_URL || process.env[EMBEDDED_TEST_DATABASE_URL_VAR];
  if (!url)
    throw new Error(
      `Neither DATABASE_URL nor ${EMBEDDED_TEST_DATABASE_URL_VAR} is set (is the vitest global setup registered?)`,
    );
  return url;
}

export interface TestDatabase<DB> extends Database<DB> {
  url: string;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/**
 * A fresh, uniquely named schema for one test file, migrated with `migrations`. Tests never see
 * each other's rows, on PostgreSQL or PGlite alike.
 */
export async function createTestDatabase<DB>(
  options: { prefix?: string; migrations?: Migrations; url?: string } = {},
): Promise<TestDatabase<DB>> {
  const url = options.url ?? testDatabaseUrl();
  const schema = `${options.prefix ?? "t"}_${randomBytes(6).toString("hex")}`;
  const database = openDatabase<DB>({ url, schema, poolMax: 4 });
  await migrateToLatest(database.db as never, schema, options.migrations ?? {});
  return {
    ...database,
    url,
    async drop() {
      await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(database.db);
      await database.close();
    },
  };
}

/**
 * Records every statement sent through `pool` (each client is wrapped when first acquired), for
 * tests that pin how many round trips a step costs: `during(step)` answers the texts `step` sent.
 */
export function recordStatements(pool: pg.Pool): { during(step: () => Promise<unknown>): Promise<string[]> } {
  const statements: string[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  pool.on("acquire", (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const config = args[0] as string | { text: string };
      statements.push(typeof config === "string" ? config : config.text);
      return query(...args);
    }) as typeof client.query;
  });
  return {
    async during(step) {
      statements.length = 0;
      await step();
      return [...statements];
    },
  };
}

/**
 * A cache invalidation listener on `url` (a test's own "process"), once it has settled: listening
 * (`coherent`) on PostgreSQL, `unsupported` on the embedded PGlite server. Told by its state
 * changes, never polled.
 */
export async function startTestCacheInvalidations(url: string = testDatabaseUrl()): Promise<DatabaseInvalidations> {
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const invalidations = startCacheInvalidations({
    url,
    applicationName: "test-cache-invalidations",
    onState: (state) => {
      if (state === "coherent" || state === "unsupported") settle();
    },
  });
  await settled;
  return invalidations;
}
