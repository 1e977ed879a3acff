import { createHash } from "node:crypto";
import { ledgerV1 } from "@attesto/proto";
import type { App } from "@attesto/runtime/http";
import { clientInterceptors, type ServiceIdentity, serverInterceptors } from "@attesto/runtime/rpc";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testCredentialSigner, testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import pino from "pino";
import { type LedgerConfig, loadLedgerConfig } from "../src/config.js";
import type { LedgerDependencies } from "../src/domain/ports.js";
import { dependenciesOf, ledger } from "../src/service.js";
import { migrations } from "../src/store/migrations/index.js";
import type { LedgerTables } from "../src/store/tables.js";

export const PUBLIC_URL = "http://localhost:8088";

/** One ledger process: its context, shared dependencies and an in-memory LedgerService client. */
export interface LedgerNode {
  config: LedgerConfig;
  context: ServiceContext<LedgerConfig>;
  dependencies: LedgerDependencies;
  /**
   * Through the same credential, caller-policy and error-mapping interceptors as the real internal
   * port: `client` as the scheduler (Notarize, GetRecord, GetCheckpoint), `dids` as the trust
   * registry (CreateDid, ResolveDid, DeactivateDid).
   */
  client: Client<typeof ledgerV1.LedgerService>;
  dids: Client<typeof ledgerV1.LedgerService>;
}

export interface TestLedger extends LedgerNode {
  database: TestDatabase<LedgerTables>;
  db: Kysely<LedgerTables>;
  app: App;
  /** Another ledger process on the same database (a restart or a second replica). */
  sibling(env?: Record<string, string>): LedgerNode;
  close(): Promise<void>;
}

function startNode(database: TestDatabase<LedgerTables>, env: Record<string, string>): LedgerNode {
  const config = loadLedgerConfig({
    DATABASE_URL: database.url,
    DATABASE_SCHEMA: database.schema,
    ...testIdentityEnv("ledger"),
    LOG_LEVEL: "silent",
    PUBLIC_URL,
    ...env,
  });
  const context = createServiceContext(ledger.definition, config, database.db as Kysely<unknown>);
  const clientAs = (caller: ServiceIdentity) =>
    createClient(
      ledgerV1.LedgerService,
      createRouterTransport((router) => ledger.definition.rpc?.(router, context), {
        router: {
          interceptors: serverInterceptors(testCredentialVerifier("ledger"), pino({ level: "silent" })),
        },
        transport: {
          interceptors: clientInterceptors({ signer: testCredentialSigner(caller), audience: "ledger", retries: 0 }),
        },
      }),
    );
  return {
    config,
    context,
    dependencies: dependenciesOf(context),
    client: clientAs("scheduler"),
    dids: clientAs("trust-registry"),
  };
}

/** A ledger on a fresh schema with its public app built; `env` overrides configuration. */
export async function createTestLedger(env: Record<string, string> = {}): Promise<TestLedger> {
  const database = await createTestDatabase<LedgerTables>({ prefix: "ledger", migrations });
  const node = startNode(database, env);
  const app = await ledger.definition.buildApp(node.context);
  await app.ready();
  return {
    ...node,
    database,
    db: database.db,
    app,
    sibling: (more = {}) => startNode(database, { ...env, ...more }),
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");
