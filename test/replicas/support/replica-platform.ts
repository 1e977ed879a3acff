import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLauncherConfig, type Platform, platformServices, startPlatform } from "@attesto/all-in-one";
import { tenantV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner, testServiceIdentityEnv } from "@attesto/runtime/testing";
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
 * other platform suites; a suite of its own passes its own, `portOffsets`); run under the platform
 * lock.
 */
const FIRST_REPLICA_PORT_OFFSET = 19_300;
const SECOND_REPLICA_PORT_OFFSET = 19_400;
const BALANCER_PORT_OFFSET = 19_350;

export interface ReplicaPortOffsets {
  first: number;
  second: number;
  balancer: number;
}

export interface ReplicaPlatform {
  /** The public URLs clients use (the balancers). */
  url: PlatformUrls;
  /** Each replica set's own public URLs (bypassing the balancer). */
  replicas: [PlatformUrls, PlatformUrls];
  balancers: Record<ServiceName, Balancer>;
  /**
   * Sends everything every balancer receives to replica `index` (0 or 1) until `pin()` without an
   * index restores round robin: a test then knows which replica served a request (and so do the
   * services' own requests to each other's public URLs).
   */
  pin(index?: 0 | 1): void;
  /** The trust registry's internal URL of the first set (for the operator's RPCs). */
  trustRegistryInternalUrl: string;
  /** The trust registry's internal URL of each set. */
  trustRegistryInternalUrls: [string, string];
  /** A pool on the shared database (tables must be schema-qualified). */
  pool: pg.Pool;
  schema: Record<ServiceName, string>;
  count(service: ServiceName, table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

const trustRegistryInternalUrlOf = (offset: number) => `http://localhost:${9085 + offset}`;

/** The trust registry's TenantService of replica set `replica`, called as the operator. */
export const operatorOn = (platform: ReplicaPlatform, replica: 0 | 1) =>
  createRpcClient(tenantV1.TenantService, {
    baseUrl: platform.trustRegistryInternalUrls[replica],
    audience: "trust-registry",
    signer: testCredentialSigner("operator"),
    timeoutMs: 10_000,
  });

export async function startReplicaPlatform(options: {
  label: string;
  /** Extra environment for every service of both sets. */
  env?: Record<string, string>;
  /** Fixed port offsets of the two sets and the balancers (default: those of the replica suite). */
  portOffsets?: ReplicaPortOffsets;
  /** The services each set runs (default: all); the balancers of the others answer 502. */
  services?: readonly ServiceName[];
}): Promise<ReplicaPlatform> {
  const offsets = options.portOffsets ?? {
    first: FIRST_REPLICA_PORT_OFFSET,
    second: SECOND_REPLICA_PORT_OFFSET,
    balancer: BALANCER_PORT_OFFSET,
  };
  const modules = platformServices.filter(
    (module) => !options.services || options.services.includes(module.definition.name as ServiceName),
  );
  const databaseUrl = process.env.DATABASE_URL || process.env[EMBEDDED_TEST_DATABASE_URL_VAR];
  if (!databaseUrl) throw new Error("the replica suites need DATABASE_URL (PostgreSQL shared by both replica sets)");
  const run = randomBytes(4).toString("hex");
  const schema = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, `${options.label}_${run}_${name.replace(/-/g, "_")}`]),
  ) as Record<ServiceName, string>;
  const jobQueueSchema = `${options.label}_${run}_boss`;
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${options.label}-`));
  const publicUrl = urlsFor(offsets.balancer);
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
  // A service neither set runs is still named at an address in this platform's range (nothing answers there).
  for (const module of platformServices.filter((m) => !modules.includes(m))) {
    const prefix = envPrefixOf(module.definition.name);
    shared[`${prefix}_URL`] = publicUrlOf[module.definition.name as ServiceName];
    shared[`${prefix}_INTERNAL_URL`] = `http://localhost:${module.ports.internal + offsets.first}`;
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
        port: SERVICE_PORTS[name] + offsets.balancer,
        backends: [SERVICE_PORTS[name] + offsets.first, SERVICE_PORTS[name] + offsets.second],
      });
    }
    // One after the other: the first set migrates the schemas and writes the development secrets
    // the second one then reads.
    for (const offset of [offsets.first, offsets.second]) {
      const env = { ...shared, PORT_OFFSET: String(offset) };
      started.push(
        await startPlatform({
          config: loadLauncherConfig(env),
          env,
          cwd: dataDir,
          logger: pino({ level: "silent" }),
          services: modules,
        }),
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: publicUrl,
    replicas: [urlsFor(offsets.first), urlsFor(offsets.second)],
    balancers: balancers as Record<ServiceName, Balancer>,
    pin(index) {
      for (const balancer of Object.values(balancers)) balancer.pin(index);
    },
    trustRegistryInternalUrl: trustRegistryInternalUrlOf(offsets.first),
    trustRegistryInternalUrls: [trustRegistryInternalUrlOf(offsets.first), trustRegistryInternalUrlOf(offsets.second)],
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
