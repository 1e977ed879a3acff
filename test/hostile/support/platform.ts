import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLauncherConfig, startPlatform } from "@attesto/all-in-one";
import { EMBEDDED_TEST_DATABASE_URL_VAR, type EmbeddedPostgres, startEmbeddedPostgres } from "@attesto/store";
import pg from "pg";
import pino from "pino";

/**
 * The real platform for one hostile-input test file: every service in this process (the
 * all-in-one `startPlatform`), on the default ports (root README, "Services and ports") + `portOffset`, each service in a schema unique
 * to this run, on DATABASE_URL (real PostgreSQL) or else the embedded PGlite of the vitest global
 * setup (or, outside it, an in-memory PGlite of our own).
 */

export const SERVICE_PORTS = {
  "auth-server": 8081,
  "credential-issuer": 8082,
  verifier: 8083,
  holder: 8084,
  "trust-registry": 8085,
  "schema-registry": 8086,
  scheduler: 8087,
  ledger: 8088,
} as const;

export type ServiceName = keyof typeof SERVICE_PORTS;
export const SERVICE_NAMES = Object.keys(SERVICE_PORTS) as ServiceName[];

export const envPrefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");

/** Tables whose rows change on any request (rate-limit hits, spent single-use values) or never matter. */
const VOLATILE_TABLES = new Set(["rate_limit_hits", "used_values", "kysely_migration", "kysely_migration_lock"]);

export interface PlatformUrls {
  auth: string;
  issuer: string;
  verifier: string;
  holder: string;
  trust: string;
  schema: string;
  ledger: string;
  scheduler: string;
}

export interface TestPlatform {
  url: PlatformUrls;
  /** The schema each service owns in this run. */
  schema: Record<ServiceName, string>;
  /** A pool on the platform's database (tables must be schema-qualified). */
  pool: pg.Pool;
  /** A content hash of every non-volatile table of every service: equal snapshots = no database change. */
  snapshot(): Promise<Record<string, string>>;
  /** Row count of `<service schema>.<table>` (optionally filtered by a SQL condition). */
  count(service: ServiceName, table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export function urlsFor(portOffset: number): PlatformUrls {
  const at = (service: ServiceName) => `http://localhost:${SERVICE_PORTS[service] + portOffset}`;
  return {
    auth: at("auth-server"),
    issuer: at("credential-issuer"),
    verifier: at("verifier"),
    holder: at("holder"),
    trust: at("trust-registry"),
    schema: at("schema-registry"),
    ledger: at("ledger"),
    scheduler: at("scheduler"),
  };
}

/** Secrets a service may require that the launcher's development secrets do not (yet) cover. */
export const EXTRA_TEST_SECRETS: Record<string, string> = {
  HOLDER_TOKEN_SECRET: randomBytes(32).toString("base64url"),
};

export async function snapshotSchemas(pool: pg.Pool, schemas: string[]): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ table_schema: string; table_name: string }>(
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1, 2",
    [schemas],
  );
  const snapshot: Record<string, string> = {};
  for (const { table_schema: schema, table_name: table } of rows) {
    if (VOLATILE_TABLES.has(table)) continue;
    const name = `"${schema}"."${table}"`;
    const result = await pool.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM ${name} t`,
    );
    snapshot[`${schema}.${table}`] = `${result.rows[0]!.n}:${result.rows[0]!.h ?? ""}`;
  }
  return snapshot;
}

export async function startTestPlatform(options: {
  portOffset: number;
  label: string;
  /** Extra environment for the services (e.g. `TRUST_REGISTRY_TRUST_PROXY`). */
  env?: Record<string, string>;
}): Promise<TestPlatform> {
  const run = randomBytes(4).toString("hex");
  const schema = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, `${options.label}_${run}_${name.replace(/-/g, "_")}`]),
  ) as Record<ServiceName, string>;

  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = process.env.DATABASE_URL || process.env[EMBEDDED_TEST_DATABASE_URL_VAR];
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres();
    databaseUrl = embedded.url;
  }
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${options.label}-`));
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...EXTRA_TEST_SECRETS,
    PORT_OFFSET: String(options.portOffset),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.HOSTILE_LOG_LEVEL ?? "silent",
    DATABASE_URL: databaseUrl,
    ...options.env,
  };
  delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
  for (const name of SERVICE_NAMES) env[`${envPrefixOf(name)}_DATABASE_SCHEMA`] = schema[name];
  // The scheduler's job queue lives in a schema of its own: this run's too.
  const jobQueueSchema = `${options.label}_${run}_boss`;
  env.SCHEDULER_JOB_QUEUE_SCHEMA = jobQueueSchema;

  const config = loadLauncherConfig(env);
  const platform = await startPlatform({ config, env, cwd: dataDir, logger: pino({ level: "silent" }) });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => {});
  const schemas = Object.values(schema);
  const dropped = [...schemas, jobQueueSchema];

  return {
    url: urlsFor(options.portOffset),
    schema,
    pool,
    snapshot: () => snapshotSchemas(pool, schemas),
    async count(service, table, where, params) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema[service]}"."${table}"${where ? ` WHERE ${where}` : ""}`,
        params,
      );
      return rows[0]!.n;
    },
    async close() {
      await platform.close().catch(() => {});
      for (const name of dropped) await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
      await pool.end().catch(() => {});
      await embedded?.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
