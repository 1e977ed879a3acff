import { randomBytes } from "node:crypto";
import { authServer } from "@attesto/auth-server";
import { credentialIssuer } from "@attesto/credential-issuer";
import { ledger } from "@attesto/ledger";
import { generateP256Jwk } from "@attesto/protocol";
import type { BaseConfig } from "@attesto/runtime/config";
import { launchService, type RunningService, type ServiceModule } from "@attesto/runtime/service";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { scheduler } from "@attesto/scheduler";
import { schemaRegistry } from "@attesto/schema-registry";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { trustRegistry } from "@attesto/trust-registry";
import { verifier } from "@attesto/verifier";
import { holder } from "../../src/service.js";
import { freePort } from "./listen.js";

/**
 * The platform in-process for flow tests: ledger, schema registry, trust registry, scheduler, auth
 * server, credential issuer, verifier and holder, each started with `launchService(module.definition,
 * config)` on its own free ports and its own database schema, wired by their configs as the
 * all-in-one launcher wires them (services/all-in-one/src/service-env.ts). Written to move to
 * test/e2e unchanged.
 */

type ServiceName =
  | "ledger"
  | "schema-registry"
  | "trust-registry"
  | "scheduler"
  | "auth-server"
  | "credential-issuer"
  | "verifier"
  | "holder";

const modules: Record<ServiceName, ServiceModule<BaseConfig>> = {
  ledger: ledger as unknown as ServiceModule<BaseConfig>,
  "schema-registry": schemaRegistry as unknown as ServiceModule<BaseConfig>,
  "trust-registry": trustRegistry as unknown as ServiceModule<BaseConfig>,
  scheduler: scheduler as unknown as ServiceModule<BaseConfig>,
  "auth-server": authServer as unknown as ServiceModule<BaseConfig>,
  "credential-issuer": credentialIssuer as unknown as ServiceModule<BaseConfig>,
  verifier: verifier as unknown as ServiceModule<BaseConfig>,
  holder: holder as unknown as ServiceModule<BaseConfig>,
};

/** Start order: a service after those it calls while starting. */
const START_ORDER: ServiceName[] = [
  "ledger",
  "schema-registry",
  "trust-registry",
  "scheduler",
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
];

interface Address {
  port: number;
  internalPort: number;
  url: string;
  internalUrl: string;
}

export interface Platform {
  urls: Record<ServiceName, string>;
  /** Stops the ledger (its ports stay reserved for `startLedger`). */
  stopLedger(): Promise<void>;
  startLedger(): Promise<void>;
  close(): Promise<void>;
}

const secret = () => randomBytes(32).toString("base64url");

/** The variables each service needs beyond the base ones (what dev-secrets.ts and service-env.ts give). */
function serviceEnv(
  name: ServiceName,
  a: Record<ServiceName, Address>,
  secrets: Record<string, string>,
): Record<string, string> {
  switch (name) {
    case "ledger":
      return { KEY_ENCRYPTION_KEYS: secrets.KEY_ENCRYPTION_KEYS! };
    case "schema-registry":
      return {};
    case "trust-registry":
      return {
        SCHEMA_REGISTRY_INTERNAL_URL: a["schema-registry"].internalUrl,
        LEDGER_INTERNAL_URL: a.ledger.internalUrl,
        CREDENTIAL_ISSUER_URL: a["credential-issuer"].url,
        LOGIN_TOKEN_SECRET: secrets.LOGIN_TOKEN_SECRET!,
        KEY_ENCRYPTION_KEYS: secrets.KEY_ENCRYPTION_KEYS!,
      };
    case "scheduler":
      return {
        LEDGER_INTERNAL_URL: a.ledger.internalUrl,
        TRUST_REGISTRY_INTERNAL_URL: a["trust-registry"].internalUrl,
        NOTARY_BATCH_INTERVAL_MS: "200",
      };
    case "auth-server":
      return {
        CREDENTIAL_ISSUER_URL: a["credential-issuer"].url,
        CREDENTIAL_ISSUER_INTERNAL_URL: a["credential-issuer"].internalUrl,
        ACCESS_TOKEN_SIGNING_KEY: secrets.ACCESS_TOKEN_SIGNING_KEY!,
        DPOP_NONCE_SECRET: secrets.DPOP_NONCE_SECRET!,
        // Local test platform on loopback, as `npm start` (the demo provider's key is public).
        CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER: "true",
      };
    case "credential-issuer":
      return {
        AUTH_SERVER_URL: a["auth-server"].url,
        TRUST_REGISTRY_INTERNAL_URL: a["trust-registry"].internalUrl,
        SCHEMA_REGISTRY_INTERNAL_URL: a["schema-registry"].internalUrl,
        LEDGER_INTERNAL_URL: a.ledger.internalUrl,
        SCHEDULER_INTERNAL_URL: a.scheduler.internalUrl,
        TRUST_REGISTRY_URL: a["trust-registry"].url,
        SCHEMA_REGISTRY_URL: a["schema-registry"].url,
        NONCE_SECRET: secrets.NONCE_SECRET!,
        KEY_ENCRYPTION_KEYS: secrets.KEY_ENCRYPTION_KEYS!,
        // Status List Tokens reusable for a second only: a status change reaches the holder quickly.
        STATUS_LIST_TTL_SECONDS: "1",
      };
    case "verifier":
      return {
        // The credential issuer's origin serves its tenants' JWT VC Issuer Metadata (as the all-in-one allows it).
        OUTBOUND_ALLOW_HOSTS: new URL(a["credential-issuer"].url).host,
        TRUST_REGISTRY_INTERNAL_URL: a["trust-registry"].internalUrl,
        LEDGER_INTERNAL_URL: a.ledger.internalUrl,
        CREDENTIAL_ISSUER_INTERNAL_URL: a["credential-issuer"].internalUrl,
        KEY_ENCRYPTION_KEYS: secrets.KEY_ENCRYPTION_KEYS!,
        // Every presentation reads the issuer's current Status List Token: a revocation is seen at once.
        STATUS_LIST_MAX_CACHE_SECONDS: "0",
      };
    case "holder":
      return {
        // The platform's own public origins, as the all-in-one allows them; nothing else internal.
        OUTBOUND_ALLOW_HOSTS: [a["credential-issuer"].url, a["auth-server"].url, a.verifier.url]
          .map((url) => new URL(url).host)
          .join(","),
        LEDGER_INTERNAL_URL: a.ledger.internalUrl,
        // Anchors of notarized credentials (their complete reference) from this platform's scheduler.
        SCHEDULER_INTERNAL_URL: a.scheduler.internalUrl,
        HOLDER_TOKEN_SECRET: secrets.HOLDER_TOKEN_SECRET!,
        KEY_ENCRYPTION_KEYS: secrets.KEY_ENCRYPTION_KEYS!,
      };
  }
}

export async function startPlatform(): Promise<Platform> {
  const { kty, crv, x, y, d } = generateP256Jwk();
  const secrets: Record<string, string> = {
    KEY_ENCRYPTION_KEYS: `k1:${secret()}`,
    LOGIN_TOKEN_SECRET: secret(),
    NONCE_SECRET: secret(),
    DPOP_NONCE_SECRET: secret(),
    HOLDER_TOKEN_SECRET: secret(),
    ACCESS_TOKEN_SIGNING_KEY: JSON.stringify({ kty, crv, x, y, d }),
  };
  const addresses = {} as Record<ServiceName, Address>;
  for (const name of START_ORDER) {
    const [port, internalPort] = [await freePort(), await freePort()];
    addresses[name] = {
      port,
      internalPort,
      url: `http://127.0.0.1:${port}`,
      internalUrl: `http://127.0.0.1:${internalPort}`,
    };
  }
  const databases: TestDatabase<unknown>[] = [];
  const running = new Map<ServiceName, RunningService>();
  const configs = new Map<ServiceName, BaseConfig>();

  const start = async (name: ServiceName) => {
    const module = modules[name];
    let config = configs.get(name);
    if (!config) {
      const database = await createTestDatabase<unknown>({ prefix: `p_${name.replace(/-/g, "_")}` });
      databases.push(database);
      config = module.loadConfig({
        DATABASE_URL: database.url,
        DATABASE_SCHEMA: database.schema,
        HOST: "127.0.0.1",
        PORT: String(addresses[name].port),
        INTERNAL_PORT: String(addresses[name].internalPort),
        PUBLIC_URL: addresses[name].url,
        // PLATFORM_LOG_LEVEL=error shows the services' failures when a flow test breaks.
        LOG_LEVEL: process.env.PLATFORM_LOG_LEVEL ?? "silent",
        ...testIdentityEnv(name),
        // Test files run in parallel on one embedded database: internal calls get time to answer.
        RPC_TIMEOUT_MS: "30000",
        ...(name === "scheduler" ? { JOB_QUEUE_SCHEMA: `${database.schema}_boss` } : {}),
        ...serviceEnv(name, addresses, secrets),
      });
      configs.set(name, config);
    }
    running.set(name, await launchService(module.definition, config));
  };

  const close = async () => {
    for (const name of [...START_ORDER].reverse())
      await running
        .get(name)
        ?.close()
        .catch(() => {});
    running.clear();
    for (const database of databases) {
      // The scheduler's job queue lives in its own schema beside the service's.
      await database.pool.query(`DROP SCHEMA IF EXISTS "${database.schema}_boss" CASCADE`).catch(() => {});
      await database.drop().catch(() => {});
    }
  };

  try {
    for (const name of START_ORDER) await start(name);
  } catch (error) {
    await close();
    throw error;
  }

  return {
    urls: Object.fromEntries(START_ORDER.map((name) => [name, addresses[name].url])) as Record<ServiceName, string>,
    async stopLedger() {
      await running.get("ledger")?.close();
      running.delete("ledger");
    },
    async startLedger() {
      if (!running.has("ledger")) await start("ledger");
    },
    close,
  };
}
