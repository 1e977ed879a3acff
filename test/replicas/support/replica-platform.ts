import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLauncherConfig, type Platform, startPlatform } from "@attesto/all-in-one";
import { testServiceIdentityEnv } from "@attesto/runtime/testing";
import { EMBEDDED_TEST_DATABASE_URL_VAR } from "@attesto/store";
import pg from "pg";
import pino from "pino";
import {
  EXTRA_TEST_SECRETS,
  envPrefixOf,
  type PlatformUrls,
  SERVICE_NAMES,
  SERVICE_PORTS,
  type ServiceName,
  urlsFor,
} from "../../hostile/support/platform.js";
import { type Balancer, startBalancer } from "./balancer.js";

/**
 * Two full replica sets of the platform (every service twice) on one PostgreSQL database — the
 * same schemas, the same job queue, the same secrets — behind one round-robin balancer per
 * service, as two pods of each Deployment behind a Kubernetes Service. Every service's PUBLIC_URL
 * is the balancer's, so tokens, DPoP proofs and offers name one public origin whichever replica
 * serves them; replicas reach their peers over their own internal ports. The two sets and the
 * balancer take fixed port offsets (test/setup/port-offsets.test.ts keeps them apart from the
 * other platform suites); run under the platform lock.
 */
const FIRST_REPLICA_PORT_OFFSET = 19_300;
const SECOND_REPLICA_PORT_OFFSET = 19_400;
const BALANCER_PORT_OFFSET = 19_350;

export interface ReplicaPlatform {
  /** The public URLs clients use (the balancers). */
  url: PlatformUrls;
  /** Each replica set's own public URLs (bypassing the balancer). */
  replicas: [PlatformUrls, PlatformUrls];
  balancers: Record<ServiceName, Balancer>;
  /** The trust registry's internal URL of the first set (for the operator's RPCs). */
  trustRegistryInternalUrl: string;
  /** A pool on the shared database (tables must be schema-qualified). */
  pool: pg.Pool;
  schema: Record<ServiceName, string>;
  count(service: ServiceName, table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export async function startReplicaPlatform(options: {
  label: string;
  /** Extra environment for every service of both sets. */
  env?: Record<string, string>;
}): Promise<ReplicaPlatform> {
  const databaseUrl = process.env.DATABASE_URL || process.env[EMBEDDED_TEST_DATABASE_URL_VAR];
  if (!databaseUrl) throw new Error("the replica suites need DATABASE_URL (PostgreSQL shared by both replica sets)");
  const run = randomBytes(4).toString("hex");
  const schema = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, `${options.label}_${run}_${name.replace(/-/g, "_")}`]),
  ) as Record<ServiceName, string>;
  const jobQueueSchema = `${options.label}_${run}_boss`;
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${options.label}-`));
  const publicUrl = urlsFor(BALANCER_PORT_OFFSET);
  const publicUrlOf: Record<ServiceName, string> = {
    "auth-server": publicUrl.auth,
    "credential-issuer": publicUrl.issuer,
    verifier: publicUrl.verifier,
    holder: publicUrl.holder,
    "trust-registry": publicUrl.trust,
    "schema-registry": publicUrl.schema,
    scheduler: publicUrl.scheduler,
    ledger: publicUrl.ledger,
  };
  const shared: Record<string, string | undefined> = {
    ...process.env,
    ...EXTRA_TEST_SECRETS,
    // Both sets sign and verify with the same service identities (the test speaks as the operator too).
    ...testServiceIdentityEnv(),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? "silent",
    DATABASE_URL: databaseUrl,
    SCHEDULER_JOB_QUEUE_SCHEMA: jobQueueSchema,
    ...options.env,
  };
  delete shared.SERVICE_IDENTITY_PUBLIC_KEYS;
  for (const name of SERVICE_NAMES) {
    shared[`${envPrefixOf(name)}_DATABASE_SCHEMA`] = schema[name];
    shared[`${envPrefixOf(name)}_PUBLIC_URL`] = publicUrlOf[name];
  }

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => {});
  const started: Platform[] = [];
  const balancers: Partial<Record<ServiceName, Balancer>> = {};
  const close = async () => {
    for (const balancer of Object.values(balancers)) await balancer.close().catch(() => {});
    for (const platform of started.reverse()) await platform.close().catch(() => {});
    for (const name of [...Object.values(schema), jobQueueSchema]) {
      await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
    }
    await pool.end().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const name of SERVICE_NAMES) {
      balancers[name] = await startBalancer({
        port: SERVICE_PORTS[name] + BALANCER_PORT_OFFSET,
        backends: [SERVICE_PORTS[name] + FIRST_REPLICA_PORT_OFFSET, SERVICE_PORTS[name] + SECOND_REPLICA_PORT_OFFSET],
      });
    }
    // One after the other: the first set migrates the schemas and writes the development secrets
    // the second one then reads.
    for (const offset of [FIRST_REPLICA_PORT_OFFSET, SECOND_REPLICA_PORT_OFFSET]) {
      const env = { ...shared, PORT_OFFSET: String(offset) };
      started.push(
        await startPlatform({
          config: loadLauncherConfig(env),
          env,
          cwd: dataDir,
          logger: pino({ level: "silent" }),
        }),
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: publicUrl,
    replicas: [urlsFor(FIRST_REPLICA_PORT_OFFSET), urlsFor(SECOND_REPLICA_PORT_OFFSET)],
    balancers: balancers as Record<ServiceName, Balancer>,
    trustRegistryInternalUrl: `http://localhost:${9085 + FIRST_REPLICA_PORT_OFFSET}`,
    pool,
    schema,
    async count(service, table, where, params) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema[service]}"."${table}"${where ? ` WHERE ${where}` : ""}`,
        params,
      );
      return rows[0]!.n;
    },
    close,
  };
}
