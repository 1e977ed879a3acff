import { randomBytes } from "node:crypto";
import { ledgerV1, schemaV1, tenantV1 } from "@attesto/proto";
import type { App } from "@attesto/runtime/http";
import {
  clientInterceptors,
  type ServiceCredentialSigner,
  type ServiceIdentity,
  serverInterceptors,
} from "@attesto/runtime/rpc";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testCredentialSigner, testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type Database, openDatabase, type TestDatabase } from "@attesto/store";
import type { DescService } from "@bufbuild/protobuf";
import { type Client, type ConnectRouter, createClient, createRouterTransport } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { createLedgerDidRegistry } from "../../src/clients/ledger-did-registry.js";
import { createSchemaRegistryCatalog } from "../../src/clients/schema-registry-catalog.js";
import { loadTrustRegistryConfig, type TrustRegistryConfig } from "../../src/config.js";
import type { KeyCustody } from "../../src/custody/index.js";
import { createDependencies } from "../../src/dependencies.js";
import type { Clock, TrustRegistryDependencies } from "../../src/domain/ports.js";
import { TenantServiceRpc } from "../../src/rpc/tenant-service.rpc.js";
import { trustRegistry } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import type { TrustRegistryTables } from "../../src/store/tables.js";
import { InMemoryLedger } from "./in-memory-ledger.js";
import { InMemorySchemaRegistry } from "./in-memory-schema-registry.js";

export const PUBLIC_URL = "http://localhost:8085";
export const CREDENTIAL_ISSUER_URL = "https://issuer.example.com/base";
export const LOGIN_TOKEN_SECRET = "l".repeat(32);
/** Nothing listens here: calls fail as "unreachable". */
export const CLOSED_PORT_URL = "http://127.0.0.1:1";

export interface TestRegistryOptions {
  /** `down`: the ledger client points at a closed port. */
  ledger?: "memory" | "down";
  schemaRegistry?: "memory" | "down";
  clock?: Clock;
  env?: Record<string, string>;
}

export interface TestRegistry {
  app: App;
  database: TestDatabase<unknown>;
  db: Kysely<TrustRegistryTables>;
  context: ServiceContext<TrustRegistryConfig>;
  config: TrustRegistryConfig;
  /** The dependencies the app and the RPC work with (one set, as per running service). */
  domain: TrustRegistryDependencies;
  custody: KeyCustody;
  ledger: InMemoryLedger;
  schemaRegistry: InMemorySchemaRegistry;
  /** TenantService as the operator reaches it (in memory, with service credentials and caller policy). */
  tenantService: Client<typeof tenantV1.TenantService>;
  /** TenantService as `caller` reaches it, e.g. the credential issuer for AuthenticateApiKey. */
  tenantServiceAs(caller: ServiceIdentity): Client<typeof tenantV1.TenantService>;
  close(): Promise<void>;
}

const logger = pino({ level: "silent" });

/** An in-memory Connect client of `service` served by `routes`, with the real credential interceptors. */
function inMemoryClient<S extends DescService>(
  service: S,
  routes: (router: ConnectRouter) => void,
  signer: ServiceCredentialSigner,
  callee: string,
): Client<S> {
  const transport = createRouterTransport(routes, {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier(callee), logger),
    },
    transport: { interceptors: clientInterceptors({ signer, audience: callee }) },
  });
  return createClient(service, transport);
}

export function testConfig(url: string, env: Record<string, string> = {}): TrustRegistryConfig {
  return loadTrustRegistryConfig({
    DATABASE_URL: url,
    ...testIdentityEnv("trust-registry"),
    LOGIN_TOKEN_SECRET,
    KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString("base64url")}`,
    PUBLIC_URL,
    CREDENTIAL_ISSUER_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    RPC_TIMEOUT_MS: "2000",
    ...env,
  });
}

/** The service's own connection pool on the test schema (several connections, as in production). */
function openServiceDatabase(database: TestDatabase<unknown>): Database<unknown> {
  return openDatabase<unknown>({ url: database.url, schema: database.schema, poolMax: 4 });
}

/**
 * The trust registry on its own test schema, with the real stores and key custody, and in-memory
 * test doubles of the ledger and the schema registry (its external edges).
 */
export async function startTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  const database = await createTestDatabase<unknown>({ prefix: "trust_registry", migrations });
  const serviceDatabase = openServiceDatabase(database);
  const config = testConfig(database.url, options.env);
  const context = createServiceContext(
    trustRegistry.definition,
    config,
    serviceDatabase.db,
    undefined,
    options.clock ? { clock: options.clock } : {},
  );
  const ledger = new InMemoryLedger();
  const schemaRegistry = new InMemorySchemaRegistry();
  const domain = createDependencies(context, {
    credentialTypes: createSchemaRegistryCatalog(
      options.schemaRegistry === "down"
        ? context.rpcClient(schemaV1.SchemaService, { baseUrl: CLOSED_PORT_URL, audience: "schema-registry" })
        : inMemoryClient(schemaV1.SchemaService, schemaRegistry.routes, context.signer, "schema-registry"),
    ),
    ledger: createLedgerDidRegistry(
      options.ledger === "down"
        ? context.rpcClient(ledgerV1.LedgerService, { baseUrl: CLOSED_PORT_URL, audience: "ledger" })
        : inMemoryClient(ledgerV1.LedgerService, ledger.routes, context.signer, "ledger"),
    ),
  });
  const app = await buildApp(context, domain);
  const tenantServiceAs = (caller: ServiceIdentity) =>
    inMemoryClient(
      tenantV1.TenantService,
      (router) => router.service(tenantV1.TenantService, new TenantServiceRpc(domain)),
      testCredentialSigner(caller),
      "trust-registry",
    );
  const tenantService = tenantServiceAs("operator");
  return {
    app,
    database,
    db: serviceDatabase.db as Kysely<TrustRegistryTables>,
    context,
    config,
    domain,
    custody: domain.custody,
    ledger,
    schemaRegistry,
    tenantService,
    tenantServiceAs,
    async close() {
      await app.close();
      await serviceDatabase.close();
      await database.drop();
    },
  };
}
