import {
  cacheInvalidationsFor,
  createPostgresRateLimitCounter,
  createReplayGuard,
  type Migrations,
  migrateToLatest,
  openDatabase,
  type ReplayGuard,
  type SealedColumn,
} from "@attesto/store";
import type { DescService } from "@bufbuild/protobuf";
import type { Client, ConnectRouter } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { type CacheInvalidations, NO_INVALIDATIONS } from "../cache/loading-cache.js";
import { type BaseConfig, publicUrlOf } from "../config.js";
import type { KeyEncryptionKey } from "../crypto/envelope.js";
import { rewrapSealedColumns } from "../crypto/rewrap-sealed-columns.js";
import type { App } from "../http/create-app.js";
import type { RateLimitCounter } from "../http/rate-limit.js";
import { createLogger } from "../logger.js";
import { createRpcClient } from "../rpc/client.js";
import { startInternalServer } from "../rpc/server.js";
import {
  createServiceCredentialSigner,
  createServiceCredentialVerifier,
  type ServiceCredentialSigner,
} from "../rpc/service-credential.js";
import { registerDatabasePoolMetrics } from "../telemetry/db-pool-metrics.js";
import { createServiceMetrics, type ServiceMetrics } from "../telemetry/metrics.js";
import type { Tracing } from "../telemetry/tracing.js";
import { databaseCheck, migrationsCheck, peerCheck, type ReadinessCheck, registerReadinessRoute } from "./readiness.js";

/** The time as a service's domain reads it: one function, so tests move it instead of sleeping. */
export type Clock = () => Date;

/** The wall clock, the default of every context. */
export const systemClock: Clock = () => new Date();

/** What the runtime hands a service when it starts: its database, limits, metrics and RPC clients. */
export interface ServiceContext<C extends BaseConfig = BaseConfig> {
  service: string;
  version: string;
  config: C;
  publicUrl: string;
  /** The one clock of the service: every expiry, timestamp and sweep reads it (tests pass their own). */
  clock: Clock;
  /** The service's logger (pino, redacting secrets): background work logs through it. */
  logger: Logger;
  db: Kysely<unknown>;
  metrics: ServiceMetrics;
  rateLimits: RateLimitCounter;
  /** Single-use values (DPoP jti, nonces) recorded in PostgreSQL. */
  replayGuard: ReplayGuard;
  /**
   * Committed changes of rarely changing tables (API keys, tenants, issuer configurations), for
   * `createCoherentCache`: the process's one LISTEN connection (`cacheInvalidationsFor`), or
   * `NO_INVALIDATIONS` (caches read through) when the context is built without one.
   */
  cacheInvalidations: CacheInvalidations;
  signer: ServiceCredentialSigner;
  /** A typed client of another service's internal API. */
  rpcClient<S extends DescService>(service: S, target: { baseUrl: string; audience: string }): Client<S>;
  /** Extra plugins for createApp (tracing). */
  plugins: Array<(app: App) => Promise<void>>;
}

export interface ServiceDefinition<C extends BaseConfig> {
  name: string;
  version: string;
  migrations: Migrations;
  /** Builds the public Fastify app (routes) from the context. */
  buildApp(context: ServiceContext<C>): Promise<App>;
  /** Registers the internal Connect services. */
  rpc?(router: ConnectRouter, context: ServiceContext<C>): void;
  /**
   * Start-up work after migrations (e.g. seeding, background workers); failing it fails start-up.
   * May return a function that stops background work; it runs on close, before the pool closes.
   */
  init?(context: ServiceContext<C>): Promise<void | (() => Promise<void>)>;
  /**
   * Columns holding envelopes under KEY_ENCRYPTION_KEYS: rewrapped under the current KEK at start-up,
   * after migrations and before `init` (KEK rotation: put the new key first, restart, drop the old).
   */
  sealedColumns?: readonly SealedColumn[];
  /**
   * The internal peers this service cannot work without (name -> internal URL): `GET /ready` fails
   * while one of them does not answer `/health`. Besides them, readiness checks the database and
   * the migrations (readiness.ts).
   */
  readinessPeers?(config: C): Record<string, string>;
}

export interface RunningService {
  name: string;
  publicUrl: string;
  internalUrl: string;
  close(): Promise<void>;
}

/** Builds the context a service runs with (also used by tests with their own database). */
export function createServiceContext<C extends BaseConfig>(
  definition: Pick<ServiceDefinition<C>, "name" | "version">,
  config: C,
  db: Kysely<unknown>,
  tracing?: Tracing,
  options: { processMetrics?: boolean; cacheInvalidations?: CacheInvalidations; clock?: Clock; logger?: Logger } = {},
): ServiceContext<C> {
  const signer = createServiceCredentialSigner({
    privateKey: config.SERVICE_IDENTITY_KEY,
    caller: definition.name,
  });
  return {
    service: definition.name,
    version: definition.version,
    config,
    publicUrl: publicUrlOf(config),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? createLogger(definition.name, config.LOG_LEVEL),
    db,
    metrics: createServiceMetrics(definition.name, options),
    rateLimits: createPostgresRateLimitCounter(db),
    replayGuard: createReplayGuard(db),
    cacheInvalidations: options.cacheInvalidations ?? NO_INVALIDATIONS,
    signer,
    rpcClient: (service, target) => createRpcClient(service, { ...target, signer, timeoutMs: config.RPC_TIMEOUT_MS }),
    plugins: tracing ? [(app) => tracing.instrument(app, definition.name)] : [],
  };
}

/** What `GET /ready` checks for a service: its database, its migrations and its required peers. */
export function readinessChecksOf<C extends BaseConfig>(
  definition: Pick<ServiceDefinition<C>, "migrations" | "readinessPeers">,
  config: C,
  db: Kysely<unknown>,
): ReadinessCheck[] {
  return [
    databaseCheck(db),
    migrationsCheck(db, config.DATABASE_SCHEMA, definition.migrations),
    ...Object.entries(definition.readinessPeers?.(config) ?? {}).map(([peer, url]) => peerCheck(peer, url)),
  ];
}

/**
 * Starts one service: database and migrations, start-up work, the public HTTP port and the
 * internal Connect port. `close()` drains: stop accepting, finish in-flight requests, close pools.
 */
export async function launchService<C extends BaseConfig>(
  definition: ServiceDefinition<C>,
  config: C,
  options: {
    tracing?: Tracing;
    /** Report the Node.js process metrics (default true; the all-in-one: only its first service). */
    processMetrics?: boolean;
  } = {},
): Promise<RunningService> {
  const database = openDatabase<unknown>({
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA,
    poolMax: config.DATABASE_POOL_MAX,
    applicationName: definition.name,
  });
  let stopBackgroundWork: (() => Promise<void>) | undefined;
  const log = createLogger(definition.name, config.LOG_LEVEL);
  // One listening connection per process and database, shared by the services of the process.
  const invalidations = cacheInvalidationsFor(config.DATABASE_URL, {
    applicationName: "attesto-cache-invalidations",
    onState: (state, error) => {
      if (state === "unsupported")
        log.info("cache invalidations: the database does not deliver notifications; caches read through");
      else if (state === "connecting" && error)
        log.warn(
          { err: error },
          "cache invalidations: listening connection lost; caches read through until it is back",
        );
    },
  });
  try {
    await migrateToLatest(database.db, config.DATABASE_SCHEMA, definition.migrations);
    await rewrapSealedColumns(
      database.db,
      (config as { KEY_ENCRYPTION_KEYS?: KeyEncryptionKey[] }).KEY_ENCRYPTION_KEYS,
      definition.sealedColumns ?? [],
      log,
    );
    const context = createServiceContext(definition, config, database.db, options.tracing, {
      processMetrics: options.processMetrics ?? true,
      cacheInvalidations: invalidations.invalidations,
      logger: log,
    });
    registerDatabasePoolMetrics(context.metrics.registry, database.pool, config.DATABASE_POOL_MAX);
    stopBackgroundWork = (await definition.init?.(context)) ?? undefined;
    const app = await definition.buildApp(context);
    registerReadinessRoute(app, readinessChecksOf(definition, config, database.db), config.READINESS_TIMEOUT_MS);
    await app.listen({ host: config.HOST, port: config.PORT });
    const internal = await startInternalServer({
      service: definition.name,
      version: definition.version,
      host: config.HOST,
      port: config.INTERNAL_PORT,
      routes: (router) => definition.rpc?.(router, context),
      verifier: createServiceCredentialVerifier({
        publicKeys: config.SERVICE_IDENTITY_PUBLIC_KEYS,
        audience: definition.name,
      }),
      metrics: context.metrics.registry,
      logger: app.log,
    }).catch(async (error: unknown) => {
      await app.close();
      throw error;
    });
    return {
      name: definition.name,
      publicUrl: context.publicUrl,
      internalUrl: internal.url,
      async close() {
        await app.close();
        await internal.close();
        if (stopBackgroundWork) await stopBackgroundWork();
        await invalidations.release();
        await database.close();
      },
    };
  } catch (error) {
    await stopBackgroundWork?.();
    await invalidations.release();
    await database.close();
    throw error;
  }
}

/**
 * SIGTERM/SIGINT: drain within `graceMs`, then exit. A second signal exits at once.
 */
export function closeOnSignals(close: () => Promise<void>, options: { graceMs: number; name: string }): void {
  const log = createLogger(options.name, "info");
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      log.error("graceful shutdown timed out");
      process.exit(1);
    }, options.graceMs);
    timer.unref();
    close().then(
      () => process.exit(0),
      (error) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
