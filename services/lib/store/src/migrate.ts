import { type Kysely, type Migration, Migrator, sql } from "kysely";
import { rateLimitMigrations } from "./rate-limit-counter.js";
import { replayGuardMigrations } from "./replay-guard.js";

export type Migrations = Record<string, Migration>;

export class MigrationError extends Error {
  override name = "MigrationError";
}

/**
 * PostgreSQL errors kysely's migrator can meet while it introspects every schema of the database
 * and another schema is dropped at that moment (another service's tests, a tenant purge): they
 * say nothing about this service's migrations, so the run is repeated.
 */
const CONCURRENT_DDL_CODES = new Set(["3F000", "42P01", "XX000"]);
const ATTEMPTS = 4;

const isConcurrentDdl = (error: unknown) =>
  CONCURRENT_DDL_CODES.has(String((error as { code?: unknown } | undefined)?.code ?? ""));

/**
 * Creates the service's schema and applies its migrations (plus the shared ones every service
 * has, prefixed `0000_`). Safe to run from several replicas at once: kysely takes a lock.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema: string, migrations: Migrations): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db, schema, migrations);
    } catch (error) {
      const cause = error instanceof MigrationError ? error.cause : error;
      if (attempt >= ATTEMPTS || !isConcurrentDdl(cause)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** Every migration a service runs: the shared `0000_` ones and its own. */
const allMigrations = (migrations: Migrations): Migrations => ({
  ...rateLimitMigrations,
  ...replayGuardMigrations,
  ...migrations,
});

/**
 * The migrations of `migrations` (and the shared ones) not recorded as applied in the schema's
 * migration table: empty when the schema is current. One indexed read, cheap enough for a probe.
 */
export async function missingMigrations(
  db: Kysely<unknown>,
  schema: string,
  migrations: Migrations,
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.id(schema, "kysely_migration")}`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  return Object.keys(allMigrations(migrations)).filter((name) => !applied.has(name));
}

async function migrateOnce(db: Kysely<unknown>, schema: string, migrations: Migrations): Promise<string[]> {
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
  const all = allMigrations(migrations);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all },
    migrationTableSchema: schema,
    // Shared `0000_` migrations may be added after a service's own ones already ran.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new MigrationError(`Migration ${failed} of schema ${schema} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
