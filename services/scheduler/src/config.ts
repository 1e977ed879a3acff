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
    /** Where batch roots are anchored: the embedded ledger (LedgerService) or an EVM chain. */
    LEDGER_BACKEND: z.enum(["embedded", "evm"]).default("embedded"),
    /** LEDGER_BACKEND=evm: JSON-RPC endpoint of the chain (may carry an API key: never logged). */
    EVM_RPC_URL: z.url().optional(),
    EVM_CHAIN_ID: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    /** The signer's secp256k1 private key (0x + 64 hex), from a Secret; never logged. */
    EVM_SIGNER_KEY: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x followed by 64 hex characters")
      .optional(),
    /** The address anchoring transactions are sent to; the signer's own address when unset. */
    EVM_ANCHOR_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be 0x followed by 40 hex characters")
      .optional(),
    /** Blocks, the transaction's own included, before a batch counts as anchored. */
    EVM_CONFIRMATIONS: int(1, 1_000).default(12),
    /** Gas limit of an anchoring transaction (a plain transfer with 53 bytes of calldata needs 21 848). */
    EVM_GAS_LIMIT: int(21_848, 10_000_000).default(60_000),
    /** Highest max fee per gas (wei) a transaction may offer; unlimited when unset. */
    EVM_MAX_FEE_PER_GAS_WEI: z
      .string()
      .regex(/^[1-9][0-9]{0,30}$/, "must be a positive integer (wei)")
      .optional(),
    /** How long one anchoring attempt waits for its transaction to be mined and confirmed. */
    EVM_CONFIRMATION_WAIT_MS: int(0, 3_600_000).default(60_000),
    /** Pause between two looks at the chain while an attempt waits. */
    EVM_POLLING_INTERVAL_MS: int(10, 600_000).default(4_000),
    /** Deadline of one JSON-RPC request. */
    EVM_RPC_TIMEOUT_MS: int(100, 120_000).default(10_000),
    /** `reference.chain` answered at enqueue time (embedded ledger; `eip155:<EVM_CHAIN_ID>` with evm). */
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
  .refine((c) => c.LEDGER_BACKEND !== "evm" || (c.EVM_RPC_URL && c.EVM_CHAIN_ID && c.EVM_SIGNER_KEY), {
    path: ["LEDGER_BACKEND"],
    message: "evm needs EVM_RPC_URL, EVM_CHAIN_ID and EVM_SIGNER_KEY",
  })
  .refine((c) => c.LEDGER_BACKEND !== "evm" || c.EVM_CONFIRMATION_WAIT_MS < c.NOTARY_JOB_TIMEOUT_SECONDS * 1000, {
    path: ["EVM_CONFIRMATION_WAIT_MS"],
    message: "must be shorter than NOTARY_JOB_TIMEOUT_SECONDS",
  })
  .refine((c) => c.JOB_QUEUE_SCHEMA !== c.DATABASE_SCHEMA, {
    path: ["JOB_QUEUE_SCHEMA"],
    message: "must differ from DATABASE_SCHEMA",
  });

export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;

export const loadSchedulerConfig = (env: Record<string, string | undefined>): SchedulerConfig =>
  loadConfig(schedulerConfigSchema, env);
