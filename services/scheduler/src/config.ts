import { baseConfigShape, booleanFlag, loadConfig } from "@attesto/runtime/config";
import { outboundConfigShape } from "@attesto/runtime/http";
import { z } from "zod";

export const schedulerPorts = { public: 8087, internal: 9087 };

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Every variable is documented in services/scheduler/README.md. */
export const schedulerConfigSchema = z
  .object({
    ...baseConfigShape({
      port: schedulerPorts.public,
      internalPort: schedulerPorts.internal,
      databaseSchema: "scheduler",
    }),
    /** LedgerService (internal port of the ledger node, or a real ledger behind the same contract). */
    LEDGER_INTERNAL_URL: z.url().default("http://localhost:9088"),
    /** TenantService of the trust registry: tenants' webhook endpoints and signing secrets. */
    TRUST_REGISTRY_INTERNAL_URL: z.url().default("http://localhost:9085"),
    /** `reference.chain` answered at enqueue time. */
    NOTARY_CHAIN: z.string().min(1).max(64).default("ledger"),
    /** A pending credential waits at most this long before its batch is cut. */
    NOTARY_BATCH_INTERVAL_MS: int(10, 3_600_000).default(5_000),
    /** A batch is cut as soon as this many credentials are pending. */
    NOTARY_BATCH_MAX_SIZE: int(1, 10_000).default(256),
    /** Anchoring attempts of a batch (per round) before it is dead-lettered. */
    NOTARY_RETRY_MAX_ATTEMPTS: int(1, 100).default(8),
    NOTARY_RETRY_BASE_DELAY_MS: int(1, 3_600_000).default(2_000),
    NOTARY_RETRY_MAX_DELAY_MS: int(1, 86_400_000).default(300_000),
    /** A job running longer than this (its worker died) is run again by another worker. */
    NOTARY_JOB_TIMEOUT_SECONDS: int(1, 3_600).default(120),
    NOTARY_WORKER_CONCURRENCY: int(1, 64).default(2),
    /** Deadline of one webhook request (connect, send, response headers and body). */
    WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
    /** Delivery attempts of one event to one endpoint (per round) before it is dead-lettered. */
    WEBHOOK_MAX_ATTEMPTS: int(1, 100).default(16),
    WEBHOOK_RETRY_BASE_DELAY_MS: int(1, 3_600_000).default(10_000),
    WEBHOOK_RETRY_MAX_DELAY_MS: int(1, 86_400_000).default(3_600_000),
    /** Allow webhook targets on any loopback, link-local, private or other non-public address (tests only). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
    /** `host:port` webhook targets allowed although internal (and over http): the outbound guard's allowance. */
    OUTBOUND_ALLOW_HOSTS: outboundConfigShape().OUTBOUND_ALLOW_HOSTS,
    /** Plain http:// webhook URLs on public hosts; https only otherwise. */
    OUTBOUND_ALLOW_HTTP: outboundConfigShape().OUTBOUND_ALLOW_HTTP,
    /** How long a tenant's webhook configuration from the trust registry is reused. */
    WEBHOOK_CONFIG_CACHE_MS: int(0, 3_600_000).default(30_000),
    WEBHOOK_WORKER_CONCURRENCY: int(1, 64).default(4),
    /** PostgreSQL schema of the job queue (pg-boss), beside the service's own schema. */
    JOB_QUEUE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lowercase SQL identifier")
      .default("scheduler_boss"),
    JOB_QUEUE_POOL_MAX: int(2, 100).default(4),
    /** How often workers look for due jobs while their queue is active (at least 500). */
    JOB_POLLING_INTERVAL_MS: int(500, 60_000).default(1_000),
    /** How often they look while it is idle: no job sent, due or run here for a minute (job-queue.ts). */
    JOB_IDLE_POLLING_INTERVAL_MS: int(500, 300_000).default(10_000),
    /** How often the queue looks for jobs whose worker died (expired) and retries them. */
    JOB_SUPERVISE_INTERVAL_SECONDS: int(1, 3_600).default(30),
    /** How often work whose job was lost (e.g. the queue gave up during a database outage) is re-queued. */
    JOB_RECONCILE_INTERVAL_MS: int(1_000, 3_600_000).default(60_000),
  })
  .refine((c) => c.NOTARY_RETRY_MAX_DELAY_MS >= c.NOTARY_RETRY_BASE_DELAY_MS, {
    path: ["NOTARY_RETRY_MAX_DELAY_MS"],
    message: "must be at least NOTARY_RETRY_BASE_DELAY_MS",
  })
  .refine((c) => c.WEBHOOK_RETRY_MAX_DELAY_MS >= c.WEBHOOK_RETRY_BASE_DELAY_MS, {
    path: ["WEBHOOK_RETRY_MAX_DELAY_MS"],
    message: "must be at least WEBHOOK_RETRY_BASE_DELAY_MS",
  })
  .refine((c) => c.JOB_IDLE_POLLING_INTERVAL_MS >= c.JOB_POLLING_INTERVAL_MS, {
    path: ["JOB_IDLE_POLLING_INTERVAL_MS"],
    message: "must be at least JOB_POLLING_INTERVAL_MS",
  })
  .refine((c) => c.JOB_QUEUE_SCHEMA !== c.DATABASE_SCHEMA, {
    path: ["JOB_QUEUE_SCHEMA"],
    message: "must differ from DATABASE_SCHEMA",
  });

export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;

export const loadSchedulerConfig = (env: Record<string, string | undefined>): SchedulerConfig =>
  loadConfig(schedulerConfigSchema, env);
