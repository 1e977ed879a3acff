import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ledger, loadLedgerConfig } from "@attesto/ledger";
import { ledgerV1, notaryV1, tenantV1 } from "@attesto/proto";
import { clientInterceptors, type ServiceIdentity, serverInterceptors } from "@attesto/runtime/rpc";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testCredentialSigner, testCredentialVerifier, testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type Database, openDatabase, type TestDatabase } from "@attesto/store";
import type { DescService } from "@bufbuild/protobuf";
import {
  type Client,
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createRouterTransport,
  type Interceptor,
} from "@connectrpc/connect";
import type { Kysely } from "kysely";
import pino from "pino";
import { createLedgerAnchoring } from "../../src/clients/ledger-anchoring.js";
import { createTenantWebhooks } from "../../src/clients/tenant-webhooks.js";
import { loadSchedulerConfig, type SchedulerConfig } from "../../src/config.js";
import { createAnchoring, createDependencies, startSchedulerRuntime } from "../../src/dependencies.js";
import type { EvmChain, SchedulerDependencies } from "../../src/domain/ports.js";
import { NotaryServiceRpc } from "../../src/rpc/notary-service.rpc.js";
import { scheduler } from "../../src/service.js";
import { migrations } from "../../src/store/migrations/index.js";
import type { SchedulerTables } from "../../src/store/tables.js";

const logger = pino({ level: "silent" });

/** A Connect client of `service` served in memory by `routes`, through the real credential interceptors. */
export function inMemoryClient<S extends DescService>(
  service: S,
  routes: (router: ConnectRouter) => void,
  options: { caller: ServiceIdentity; callee: string; extra?: Interceptor[] },
): Client<S> {
  const transport = createRouterTransport(routes, {
    router: {
      interceptors: serverInterceptors(testCredentialVerifier(options.callee), logger),
    },
    transport: {
      interceptors: [
        ...(options.extra ?? []),
        ...clientInterceptors({
          signer: testCredentialSigner(options.caller),
          audience: options.callee,
          retries: 0,
        }),
      ],
    },
  });
  return createClient(service, transport);
}

/** The real ledger node on its own schema, reached through a switch that simulates outages and slowness. */
export interface TestLedger {
  client: Client<typeof ledgerV1.LedgerService>;
  context: ServiceContext;
  database: TestDatabase<unknown>;
  /** While true, every call fails as Unavailable before reaching the ledger. */
  down: boolean;
  /** Added before every Notarize call. */
  notarizeDelayMs: number;
  notarizeCalls: number;
  close(): Promise<void>;
}

export async function startTestLedger(): Promise<TestLedger> {
  const database = await createTestDatabase<unknown>({ prefix: "ledger", migrations: ledger.definition.migrations });
  const config = loadLedgerConfig({
    DATABASE_URL: database.url,
    DATABASE_SCHEMA: database.schema,
    ...testIdentityEnv("ledger"),
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:8088",
  });
  const context = createServiceContext(ledger.definition, config, database.db as Kysely<unknown>);
  const state: TestLedger = {
    client: undefined as never,
    context: context as ServiceContext,
    database,
    down: false,
    notarizeDelayMs: 0,
    notarizeCalls: 0,
    close: () => database.drop(),
  };
  const outage: Interceptor = (next) => async (request) => {
    if (state.down) throw new ConnectError("connect ECONNREFUSED 127.0.0.1:9088", Code.Unavailable);
    if (request.method.name === "Notarize") {
      state.notarizeCalls += 1;
      if (state.notarizeDelayMs) await new Promise((resolve) => setTimeout(resolve, state.notarizeDelayMs));
    }
    return next(request);
  };
  state.client = inMemoryClient(ledgerV1.LedgerService, (router) => ledger.definition.rpc?.(router, context), {
    caller: "scheduler",
    callee: "ledger",
    extra: [outage],
  });
  return state;
}

/** The trust registry's TenantService.GetWebhooks, in memory: `webhooks[tenant]`. */
export class FakeTenantWebhooks {
  readonly tenants = new Map<string, { webhooks: Array<{ url: string; events: string[] }>; secret: string }>();
  down = false;
  calls = 0;
  /** GetWebhooks calls per tenant (answered or not). */
  readonly callsFor = new Map<string, number>();
  readonly routes = (router: ConnectRouter) =>
    router.service(tenantV1.TenantService, {
      getWebhooks: async ({ tenant }) => {
        this.calls += 1;
        this.callsFor.set(tenant, (this.callsFor.get(tenant) ?? 0) + 1);
        if (this.down) throw new ConnectError("trust registry down", Code.Unavailable);
        const entry = this.tenants.get(tenant);
        if (!entry) throw new ConnectError("Tenant not found", Code.NotFound);
        return entry;
      },
    });

  /** Registers `urls` for a new tenant with a fresh secret; returns both. */
  register(urls: string[], events: string[] = []): { tenant: string; secret: string } {
    const tenant = `t-${randomBytes(4).toString("hex")}`;
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    this.tenants.set(tenant, { webhooks: urls.map((url) => ({ url, events })), secret });
    return { tenant, secret };
  }
}

export interface TestScheduler {
  config: SchedulerConfig;
  database: TestDatabase<SchedulerTables>;
  db: Kysely<SchedulerTables>;
  /** The scheduler's dependencies (stores, edges, job queue), as the service module builds them. */
  deps: SchedulerDependencies;
  ledger: TestLedger;
  tenants: FakeTenantWebhooks;
  /** NotaryService as the credential issuer calls it (EnqueueNotarization). */
  notary: Client<typeof notaryV1.NotaryService>;
  /** NotaryService as the operator calls it (reads, dead letters, delivery log). */
  admin: Client<typeof notaryV1.NotaryService>;
  /** What failed in the background: the job queue's errors (as logged) and the workers' failures. */
  errors: unknown[];
  /** What the scheduler logged at warn (failed webhook deliveries). */
  warnings: Array<{ fields: Record<string, unknown>; message: string }>;
  /** The /metrics exposition of its registry (Prometheus text), as a scrape reads it. */
  metrics(): Promise<string>;
  /** Starts the workers (the queue, cutter, reconciler); tests that only enqueue may skip it. */
  start(): Promise<void>;
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

/** Defaults for fast tests: short batch interval, small batches, millisecond backoff. */
export const FAST_ENV: Record<string, string> = {
  NOTARY_BATCH_INTERVAL_MS: "300",
  NOTARY_BATCH_MAX_SIZE: "4",
  NOTARY_RETRY_MAX_ATTEMPTS: "3",
  NOTARY_RETRY_BASE_DELAY_MS: "50",
  NOTARY_RETRY_MAX_DELAY_MS: "200",
  WEBHOOK_MAX_ATTEMPTS: "3",
  WEBHOOK_RETRY_BASE_DELAY_MS: "50",
  WEBHOOK_RETRY_MAX_DELAY_MS: "200",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_CONFIG_CACHE_MS: "0",
  JOB_POLLING_INTERVAL_MS: "500",
  // Beyond any test's patience: every job the tests expect must be picked up because this process
  // sent it (the idle backoff's wake-ups), never by an idle poll. kill-worker.test.ts lowers it.
  JOB_IDLE_POLLING_INTERVAL_MS: "120000",
  JOB_SUPERVISE_INTERVAL_SECONDS: "1",
  RPC_TIMEOUT_MS: "2000",
};

export async function startTestScheduler(
  env: Record<string, string> = {},
  /** LEDGER_BACKEND=evm: the chain to anchor on (tests wrap the real one to inject faults). */
  edges: { evmChain?: EvmChain } = {},
): Promise<TestScheduler> {
  const database = await createTestDatabase<SchedulerTables>({ prefix: "scheduler", migrations });
  const serviceDatabase: Database<unknown> = openDatabase<unknown>({
    url: database.url,
    schema: database.schema,
    poolMax: 4,
  });
  const config = loadSchedulerConfig({
    DATABASE_URL: database.url,
    DATABASE_SCHEMA: database.schema,
    JOB_QUEUE_SCHEMA: `${database.schema}_boss`,
    ...testIdentityEnv("scheduler"),
    LOG_LEVEL: "silent",
    ...FAST_ENV,
    ...env,
  });
  const errors: unknown[] = [];
  // The context's logger keeps what the scheduler logs at error (the job queue's errors).
  const context = createServiceContext(scheduler.definition, config, serviceDatabase.db, undefined, {
    logger: pino({ level: "error" }, { write: (line: string) => errors.push(JSON.parse(line)) }),
  });
  const testLedger = await startTestLedger();
  const tenants = new FakeTenantWebhooks();
  const warnings: TestScheduler["warnings"] = [];
  const deps = createDependencies(context, {
    ledger:
      config.LEDGER_BACKEND === "evm"
        ? createAnchoring(context, edges.evmChain)
        : createLedgerAnchoring(testLedger.client),
    webhooks: createTenantWebhooks(
      inMemoryClient(tenantV1.TenantService, tenants.routes, { caller: "scheduler", callee: "trust-registry" }),
      { ttlMs: config.WEBHOOK_CONFIG_CACHE_MS },
    ),
    log: { warn: (fields, message) => warnings.push({ fields, message }) },
  });
  const notaryAs = (caller: ServiceIdentity) =>
    inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(deps)),
      { caller, callee: "scheduler" },
    );
  const notary = notaryAs("credential-issuer");
  const admin = notaryAs("operator");
  let stop: (() => Promise<void>) | undefined;
  const stopWorkers = async () => {
    await stop?.();
    stop = undefined;
  };
  return {
    config,
    database,
    db: database.db,
    deps,
    ledger: testLedger,
    tenants,
    notary,
    admin,
    errors,
    warnings,
    metrics: () => context.metrics.registry.metrics(),
    async start() {
      stop = await startSchedulerRuntime(deps, config, (error) => errors.push(error));
    },
    stopWorkers,
    async close() {
      await stopWorkers();
      await serviceDatabase.close();
      await database.drop();
      const { sql } = await import("kysely");
      await sql`DROP SCHEMA IF EXISTS ${sql.id(config.JOB_QUEUE_SCHEMA)} CASCADE`
        .execute(testLedger.database.db)
        .catch(() => {});
      await testLedger.close();
    },
  };
}

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
export const newCredentialId = () => randomUUID();

/** Polls `probe` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 15_000, label = "condition") {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
