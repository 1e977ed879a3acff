import { type Kysely, type Migration, Migrator, sql } from "kysely";
import { rateLimitMigrations } from "./rate-limit-counter.js";
import { replayGuardMigrations } from "./replay-guard.js";

export type Migrations = Record<string, Migration>;

export class MigrationError extends Error {
  override name = "MigrationError";
}

/**
 * Creates the service's schema and applies its migrations (plus the shared ones every service
 * has, prefixed `0000_`). Safe to run from several replicas at once: kysely takes a lock.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema: string, migrations: Migrations): Promise<string[]> {
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
  const all: Migrations = { ...rateLimitMigrations, ...replayGuardMigrations, ...migrations };
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
