import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLauncherConfig, type Platform, platformServices, startPlatform } from "@attesto/all-in-one";
import { keysV1 } from "@attesto/proto";
import { createRpcClient } from "@attesto/runtime/rpc";
import { testCredentialSigner, testServiceIdentityEnv } from "@attesto/runtime/testing";
import { openDatabase } from "@attesto/store";
import { createTrustRegistryModule } from "@attesto/trust-registry";
import pino from "pino";

/**
 * The real platform, started in this test process by the all-in-one launcher's `startPlatform`:
 * every service on real ports (the default ports (root README, "Services and ports") + `portOffset`), real HTTP between them. Embedded
 * PGlite in a temporary data folder when DATABASE_URL is unset; otherwise that PostgreSQL, each
 * service in a schema unique to this run (dropped on close).
 *
 * Only the services on the flows under test run: the holder and the scheduler are on no path these
 * suites exercise; their URLs still point into this platform's port
 * range, so nothing can reach a developer's instance on the default ports.
 *
 * Offsets: a platform takes 8081..8088 and 9081..9088 plus its offset, so two offsets must differ
 * by at least 8 and the public range of one must not meet the internal range of another (offset
 * + 1000). In use: npm start 0, e2e 20000 and 19700 (credential status), hostile/fault suites 22000..22050, 22100, 22110, these
 * suites 21200, 21300 and 21400, the mdoc interop suite 12200, the bench 21500. 21000 and 21100 would meet the e2e and fault suites'
 * ports. Everything stays below 32768, Linux's ephemeral range, where any outgoing connection on
 * the machine may already hold a port.
 */
export interface InteropPlatform {
  /** Public URL of a service, e.g. url("credential-issuer") = http://localhost:29382 at offset 21300. */
  url(service: ServiceName): string;
  internalUrl(service: ServiceName): string;
  /** The platform's X.509 trust anchors (base64 DER), read from key custody like the verifier does. */
  trustAnchors(): Promise<string[]>;
  close(): Promise<void>;
}

export type ServiceName =
  | "auth-server"
  | "credential-issuer"
  | "verifier"
  | "holder"
  | "trust-registry"
  | "schema-registry"
  | "scheduler"
  | "ledger";

const SERVICES: ServiceName[] = [
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
  "trust-registry",
  "schema-registry",
  "scheduler",
  "ledger",
];

const prefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");

/** Services these suites do not start. */
const NOT_STARTED = new Set<string>(["holder", "scheduler"]);

/** `alsoStart`: services of NOT_STARTED a suite needs after all (e.g. the scheduler, which status changes publish to). */
export async function startInteropPlatform(options: {
  portOffset: number;
  label: string;
  /** The time the trust registry reads (key custody's certificate checks); the system clock by default. */
  trustRegistryClock?: () => Date;
  alsoStart?: ServiceName[];
  /** Added to the launcher's environment (e.g. `HOLDER_<VAR>` overrides, OUTBOUND_ALLOW_HOSTS). */
  env?: Record<string, string>;
}): Promise<InteropPlatform> {
  const notStarted = new Set([...NOT_STARTED].filter((name) => !options.alsoStart?.includes(name as ServiceName)));
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-interop-${options.label}-`));
  const realDatabaseUrl = process.env.DATABASE_URL || undefined;
  const run = randomBytes(4).toString("hex");
  const schemaOf = (service: string) => `interop_${options.label}_${run}_${service.replace(/-/g, "_")}`;

  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT_OFFSET: String(options.portOffset),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? "error",
    // The test identities, so that tests (and an operator under test) can call the internal ports.
    ...testServiceIdentityEnv(),
    DATABASE_URL: realDatabaseUrl,
    ...options.env,
  };
  if (realDatabaseUrl) for (const name of SERVICES) env[`${prefixOf(name)}_DATABASE_SCHEMA`] = schemaOf(name);
  for (const module of platformServices) {
    if (!notStarted.has(module.definition.name)) continue;
    const prefix = prefixOf(module.definition.name);
    env[`${prefix}_URL`] = `http://localhost:${module.ports.public + options.portOffset}`;
    env[`${prefix}_INTERNAL_URL`] = `http://localhost:${module.ports.internal + options.portOffset}`;
  }
  const config = loadLauncherConfig(env);
  const logger = pino({ level: config.LOG_LEVEL });

  let platform: Platform;
  try {
    platform = await startPlatform({
      config,
      env,
      cwd: dataDir,
      logger,
      services: platformServices
        .filter((module) => !notStarted.has(module.definition.name))
        .map((module) =>
          module.definition.name === "trust-registry" && options.trustRegistryClock
            ? (createTrustRegistryModule({ clock: options.trustRegistryClock }).module as unknown as typeof module)
            : module,
        ),
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const addressOf = (service: ServiceName) => {
    const address = platform.services.find((s) => s.name === service);
    if (!address) throw new Error(`the platform runs no ${service}`);
    return address;
  };
  const custody = createRpcClient(keysV1.KeyCustodyService, {
    baseUrl: addressOf("trust-registry").internalUrl,
    audience: "trust-registry",
    signer: testCredentialSigner("verifier"),
    timeoutMs: 5_000,
  });

  return {
    url: (service) => addressOf(service).publicUrl,
    internalUrl: (service) => addressOf(service).internalUrl,
    async trustAnchors() {
      return (await custody.getTrustAnchors({})).certificates;
    },
    async close() {
      try {
        await platform.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        if (realDatabaseUrl) {
          const database = openDatabase({ url: realDatabaseUrl, schema: "public", poolMax: 1 });
          for (const name of SERVICES) await database.pool.query(`DROP SCHEMA IF EXISTS ${schemaOf(name)} CASCADE`);
          await database.close();
        }
      }
    },
  };
}
