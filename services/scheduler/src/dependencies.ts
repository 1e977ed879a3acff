import { ledgerV1, tenantV1 } from "@attesto/proto";
import { createServiceOutboundGuard } from "@attesto/runtime/http";
import { createWakeSignal } from "@attesto/runtime/polling-loop";
import type { ServiceContext } from "@attesto/runtime/service";
import { createEvmChain } from "./clients/evm-chain.js";
import { createLedgerAnchoring } from "./clients/ledger-anchoring.js";
import { createTenantWebhooks } from "./clients/tenant-webhooks.js";
import type { SchedulerConfig } from "./config.js";
import { createEvmAnchoring } from "./domain/evm/evm-anchoring.js";
import type { EvmChain, LedgerAnchoring, SchedulerDependencies, SchedulerOverrides } from "./domain/ports.js";
import { PgBossJobQueue } from "./jobs/job-queue.js";
import { startWorkers } from "./jobs/start-workers.js";
import { createSchedulerMetrics } from "./scheduler-metrics.js";
import { createEvmTransactionStore } from "./store/evm-transaction.store.js";
import { createNotarizationStore } from "./store/notarization.store.js";
import { createWebhookDeliveryStore } from "./store/webhook-delivery.store.js";
import { createWebhookEventStore } from "./store/webhook-event.store.js";
import { createHttpWebhookSender } from "./webhooks/http-webhook-sender.js";

/**
 * The scheduler's stores, clients and job queue from the service context, fresh on every call
 * (`service.ts` shares one set per running service). Time is `context.clock` (unless
 * `overrides.now`), the delivery log and the queue's errors go to `context.logger`; tests pass
 * doubles of single edges in `overrides` (`createAnchoring` builds the ledger edge on a chain of their own).
 */
export function createDependencies(
  context: ServiceContext<SchedulerConfig>,
  overrides: SchedulerOverrides = {},
): SchedulerDependencies {
  const { config } = context;
  const now = overrides.now ?? context.clock;
  const webhookJobSeconds = Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 30;
  const queue = new PgBossJobQueue({
    url: config.DATABASE_URL,
    schema: config.JOB_QUEUE_SCHEMA,
    poolMax: config.JOB_QUEUE_POOL_MAX,
    pollingIntervalMs: config.JOB_POLLING_INTERVAL_MS,
    idlePollingIntervalMs: config.JOB_IDLE_POLLING_INTERVAL_MS,
    superviseIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
    expireInSeconds: {
      "anchor-batch": config.NOTARY_JOB_TIMEOUT_SECONDS,
      "dispatch-webhook-event": Math.ceil(config.RPC_TIMEOUT_MS / 1000) + 30,
      "deliver-webhook": webhookJobSeconds,
    },
    onError: (error) => context.logger.error({ err: error }, "job queue error"),
  });
  const notarizations = overrides.notarizations ?? createNotarizationStore(context.db, queue.send, now);
  const deliveries = overrides.deliveries ?? createWebhookDeliveryStore(context.db, queue.send, now);
  return {
    notarizations,
    events: overrides.events ?? createWebhookEventStore(context.db, queue.send, queue.insert, now),
    deliveries,
    ledger: overrides.ledger ?? createAnchoring(context, undefined, now),
    webhooks:
      overrides.webhooks ??
      createTenantWebhooks(
        context.rpcClient(tenantV1.TenantService, {
          baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
          audience: "trust-registry",
        }),
        { ttlMs: config.WEBHOOK_CONFIG_CACHE_MS },
      ),
    sender:
      overrides.sender ??
      createHttpWebhookSender(
        createServiceOutboundGuard(
          { name: context.service, version: context.version, config },
          { allowInternal: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, maxRedirects: 0 },
        ),
        { timeoutMs: config.WEBHOOK_TIMEOUT_MS },
      ),
    metrics: overrides.metrics ?? createSchedulerMetrics(context.metrics.registry, { notarizations, deliveries }, now),
    now,
    chain: overrides.chain ?? (config.LEDGER_BACKEND === "evm" ? `eip155:${config.EVM_CHAIN_ID}` : config.NOTARY_CHAIN),
    batch: overrides.batch ?? {
      intervalMs: config.NOTARY_BATCH_INTERVAL_MS,
      maxSize: config.NOTARY_BATCH_MAX_SIZE,
      enqueued: createWakeSignal(),
    },
    anchorRetry: overrides.anchorRetry ?? {
      maxAttempts: config.NOTARY_RETRY_MAX_ATTEMPTS,
      baseDelayMs: config.NOTARY_RETRY_BASE_DELAY_MS,
      maxDelayMs: config.NOTARY_RETRY_MAX_DELAY_MS,
    },
    webhookRetry: overrides.webhookRetry ?? {
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      baseDelayMs: config.WEBHOOK_RETRY_BASE_DELAY_MS,
      maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
    },
    version: overrides.version ?? context.version,
    log: overrides.log ?? context.logger,
    jobs: queue,
  };
}

/**
 * `LEDGER_BACKEND`: the embedded ledger over LedgerService, or an EVM chain through viem (`evmChain`:
 * the configured one unless given; tests wrap the real one to inject faults).
 */
export function createAnchoring(
  context: ServiceContext<SchedulerConfig>,
  evmChain?: EvmChain,
  now: () => Date = context.clock,
): LedgerAnchoring {
  const { config } = context;
  if (config.LEDGER_BACKEND === "embedded") {
    return createLedgerAnchoring(
      context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
    );
  }
  const chain = evmChain ?? createEvmChainFromConfig(config);
  return createEvmAnchoring(
    chain,
    createEvmTransactionStore(context.db, { chainId: chain.chainId, sender: chain.from }, now),
    {
      confirmations: config.EVM_CONFIRMATIONS,
      waitMs: config.EVM_CONFIRMATION_WAIT_MS,
      pollingIntervalMs: config.EVM_POLLING_INTERVAL_MS,
    },
  );
}

/** The chain of LEDGER_BACKEND=evm (the configuration's refinement guarantees the three settings). */
export const createEvmChainFromConfig = (config: SchedulerConfig): EvmChain =>
  createEvmChain({
    rpcUrl: config.EVM_RPC_URL as string,
    chainId: config.EVM_CHAIN_ID as number,
    signerKey: config.EVM_SIGNER_KEY as `0x${string}`,
    anchorAddress: config.EVM_ANCHOR_ADDRESS,
    gasLimit: BigInt(config.EVM_GAS_LIMIT),
    maxFeePerGas: config.EVM_MAX_FEE_PER_GAS_WEI === undefined ? undefined : BigInt(config.EVM_MAX_FEE_PER_GAS_WEI),
    timeoutMs: config.EVM_RPC_TIMEOUT_MS,
  });

/** Starts the queue and the workers; the returned function stops them. */
export async function startSchedulerRuntime(
  deps: SchedulerDependencies,
  config: SchedulerConfig,
  onError: (error: unknown, activity: string) => void,
): Promise<() => Promise<void>> {
  await deps.jobs.start();
  return startWorkers(deps, {
    notaryConcurrency: config.NOTARY_WORKER_CONCURRENCY,
    webhookConcurrency: config.WEBHOOK_WORKER_CONCURRENCY,
    reconcileIntervalMs: config.JOB_RECONCILE_INTERVAL_MS,
    idleIntervalMs: config.JOB_IDLE_POLLING_INTERVAL_MS,
    strandedAfterMs: Math.max(
      config.JOB_RECONCILE_INTERVAL_MS,
      2 * 1000 * Math.max(config.NOTARY_JOB_TIMEOUT_SECONDS, Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 30),
    ),
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    onError,
  });
}
