import type { RetryPolicy } from "./backoff.js";
import type {
  Batch,
  BatchInclusion,
  DeliveryState,
  JobRequest,
  LedgerAnchor,
  NewWebhookEvent,
  Notarization,
  NotarizationState,
  QueueName,
  WebhookDelivery,
  WebhookEvent,
} from "./model.js";

/**
 * The scheduler's ports: the stores, the ledger or chain it anchors on, the trust registry's webhook
 * configuration, the webhook sender, the job queue, and the aggregate the composition root
 * (`src/dependencies.ts`) builds from them.
 */

/**
 * Where batch roots are anchored (`LEDGER_BACKEND`: the embedded ledger or an EVM chain), as the
 * notary uses it. Failures are thrown (unreachable, refused, not confirmed yet): the attempt is
 * retried. Anchoring the same batch again never makes a second anchor.
 */
export interface LedgerAnchoring {
  /** Anchors the batch's `root` once per batch id and returns where, with the proof. */
  anchor(batch: { batchId: string; root: string }): Promise<LedgerAnchor>;
  /** Throws when the ledger cannot be reached. */
  probe(): Promise<void>;
}

export interface TenantWebhook {
  url: string;
  /** Empty: every event type. */
  events: string[];
}

export interface TenantWebhooks {
  webhooks: TenantWebhook[];
  /** Empty when the tenant has none. */
  secret: string;
}

/** The trust registry's webhook configuration of tenants (cached briefly). */
export interface WebhookDirectory {
  get(tenant: string): Promise<TenantWebhooks>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends one webhook request; resolves with the status of any HTTP response, throws otherwise. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<{ statusCode: number }>;
}

/** The job queue, as the reconciler asks it whether a job still exists. */
export interface JobLiveness {
  isLive(queue: string, jobId: string): Promise<boolean>;
}

/** The data of a job of `queue`. */
export type JobDataOf<Q extends QueueName> = Extract<JobRequest, { queue: Q }>["data"];

/** The job queue (pg-boss in its own schema): the workers of each queue, started and stopped with the service. */
export interface JobQueue extends JobLiveness {
  start(): Promise<void>;
  /** `concurrency` workers on `queue`, each running one job at a time. */
  work<Q extends QueueName>(
    queue: Q,
    concurrency: number,
    handler: (data: JobDataOf<Q>, jobId: string) => Promise<void>,
  ): Promise<void>;
  /** Stops the workers, letting running jobs finish within `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export interface SchedulerMetricsPort {
  enqueued(): void;
  batchCut(size: number): void;
  anchorAttempt(result: "anchored" | "failed" | "dead"): void;
  anchored(latencySeconds: number): void;
  delivery(result: "delivered" | "failed" | "dead"): void;
}

/** What the scheduler works with, built once per running service from its context (`createDependencies`). */
export interface SchedulerDependencies {
  notarizations: NotarizationStore;
  events: WebhookEventStore;
  deliveries: WebhookDeliveryStore;
  ledger: LedgerAnchoring;
  webhooks: WebhookDirectory;
  sender: WebhookSender;
  metrics: SchedulerMetricsPort;
  now: () => Date;
  chain: string;
  /** `enqueued`: this process recorded a notarization (wakes the batch cutter). */
  batch: { intervalMs: number; maxSize: number; enqueued: WorkSignal };
  anchorRetry: RetryPolicy;
  webhookRetry: RetryPolicy;
  /** Version of the scheduler, in the User-Agent of webhook requests. */
  version: string;
  /** Failed webhook deliveries are logged here at warn. */
  log: DeliveryLog;
  /** The job queue the stores queue follow-up jobs on; the workers (jobs/) run them. */
  jobs: JobQueue;
}

/**
 * What tests may replace when they build the dependencies: any edge but the job queue, which is the
 * one the stores queue their follow-up jobs on.
 */
export type SchedulerOverrides = Partial<Omit<SchedulerDependencies, "jobs">>;

/** The scheduler's log, as the domain uses it. */
export interface DeliveryLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Work created by this process, announced to the background loop that picks it up (structurally a `WakeSignal` of the runtime's polling loop). */
export interface WorkSignal {
  wake(): void;
  subscribe(listener: () => void): () => void;
}

/*
 * The scheduler's persistence, one store per record family (PostgreSQL behind use-case sized
 * operations). Each write that changes a state also queues the follow-up job in the same
 * transaction: a state is never recorded without the job that moves it on.
 */

/** A pending notarization as the batch cutter sees it. */
export interface PendingLeaf {
  objectId: string;
  saltedDigest: string;
  /** Waited at least the batch interval. */
  due: boolean;
}

export interface BatchPlan {
  batchId: string;
  root: string;
  leaves: Array<{ objectId: string; inclusion: BatchInclusion }>;
}

export interface NewNotarization {
  objectId: string;
  chain: string;
  tenant: string;
  credentialId: string;
  offerId: string | undefined;
  digest: string;
  salt: string;
  saltedDigest: string;
}

export interface AttemptClaim<T> {
  record: T;
  /** The attempt number this worker now owns (1-based, per round). */
  attempt: number;
}

export interface DeliveryOutcome {
  state: Extract<DeliveryState, "delivered" | "failed" | "dead">;
  statusCode: number | undefined;
  error: string | undefined;
  nextAttemptAt: Date | undefined;
}

/** Non-terminal work whose job may have been lost; `jobId` is the job the row named when listed. */
export interface StrandedWork {
  kind: "batch" | "event" | "delivery";
  id: string;
  jobId: string | null;
}

/** What the reconciler needs of a store: its non-terminal rows left alone too long, and a way to queue them again. */
export interface StrandedWorkStore {
  /** Non-terminal work untouched for `olderThanMs`: its job may have been lost. */
  listStranded(olderThanMs: number): Promise<StrandedWork[]>;
  /** Queues a new job for stranded work (of this store), unless its job changed meanwhile. */
  requeue(work: StrandedWork): Promise<boolean>;
}

/** Notarizations and the Merkle batches they are anchored in. */
export interface NotarizationStore extends StrandedWorkStore {
  /** Inserts, or returns the existing notarization of the same credential id. */
  insertNotarization(notarization: NewNotarization): Promise<Notarization>;
  findNotarization(objectId: string): Promise<Notarization | undefined>;
  findNotarizationByCredential(credentialId: string): Promise<Notarization | undefined>;
  listNotarizations(filter: { tenant?: string; state?: NotarizationState; limit: number }): Promise<Notarization[]>;
  listBatchNotarizations(batchId: string): Promise<Notarization[]>;

  /**
   * Locks up to `maxSize` unbatched notarizations (oldest first, skipping ones another replica
   * holds); when `plan` returns a batch for them, records it and queues its anchor job. Returns
   * whether a batch was cut.
   */
  cutBatch(
    maxSize: number,
    intervalMs: number,
    plan: (leaves: PendingLeaf[]) => BatchPlan | undefined,
  ): Promise<boolean>;
  claimBatchAttempt(batchId: string, jobId: string): Promise<AttemptClaim<Batch> | undefined>;
  /** Records the anchor and the batch's events (each queued for dispatch) at once. */
  recordBatchAnchored(
    batchId: string,
    attempt: number,
    anchor: LedgerAnchor,
    events: NewWebhookEvent[],
  ): Promise<boolean>;
  recordBatchFailed(batchId: string, attempt: number, error: string, nextAttemptAt: Date): Promise<boolean>;
  recordBatchDead(batchId: string, attempt: number, error: string, events: NewWebhookEvent[]): Promise<boolean>;
  /** Dead batches (filtered) back to pending with a fresh round of attempts and a new job. */
  retryDeadBatches(filter: {
    tenant?: string;
    objectIds?: string[];
  }): Promise<{ batches: number; notarizations: number }>;
  /** Notarizations by state, for the queue-depth gauge. */
  countByState(): Promise<Record<string, number>>;
  /**
   * When the oldest notarization not anchored yet was enqueued: pending, failed or dead-lettered (a
   * dead letter is anchoring fallen behind too, until an operator retries it).
   */
  oldestUnanchoredAt(): Promise<Date | undefined>;
}

/** Webhook events and their dispatch (the fan-out into one delivery per endpoint). */
export interface WebhookEventStore extends StrandedWorkStore {
  /** Inserts an event (once per dedupe key) and queues its dispatch; whether it was new. */
  insertEvent(event: NewWebhookEvent): Promise<boolean>;
  findEvent(eventId: string): Promise<(WebhookEvent & { dispatched: boolean }) | undefined>;
  /** Creates one delivery per URL (once) and queues them; marks the event dispatched. */
  recordEventDispatched(eventId: string, urls: string[]): Promise<number>;
}

/** Webhook deliveries (one event to one endpoint) and their attempt log. */
export interface WebhookDeliveryStore extends StrandedWorkStore {
  claimDeliveryAttempt(
    deliveryId: string,
    jobId: string,
  ): Promise<AttemptClaim<{ delivery: WebhookDelivery; event: WebhookEvent }> | undefined>;
  recordDeliveryAttempt(deliveryId: string, attempt: number, outcome: DeliveryOutcome): Promise<boolean>;
  listDeliveries(filter: {
    tenant?: string;
    eventId?: string;
    state?: DeliveryState;
    limit: number;
  }): Promise<WebhookDelivery[]>;
  retryDeadDeliveries(filter: { tenant?: string; deliveryIds?: string[] }): Promise<number>;
  /** Deliveries by state, for the queue-depth gauge. */
  countByState(): Promise<Record<string, number>>;
}

/* LEDGER_BACKEND=evm: the chain and the signer's transactions. */

/** A signed anchoring transaction of a batch, as stored before it is broadcast. */
export interface EvmTransaction {
  hash: string;
  batchId: string;
  nonce: number;
  /** The signed transaction (0x hex). */
  raw: string;
  createdAt: Date;
}

export interface SignedTransaction {
  hash: string;
  raw: string;
}

/** The signer's anchoring transactions (evm_transactions) and its next nonce. */
export interface EvmTransactionStore {
  /** The batch's transactions, oldest first. */
  listForBatch(batchId: string): Promise<EvmTransaction[]>;
  /**
   * Gives the batch a new nonce, the larger of the signer's stored next nonce and `chainNonce`,
   * signs with it and stores the transaction, all under the signer's lock. Undefined (nothing
   * written) when the batch no longer has exactly `knownCount` transactions: another attempt
   * of the same batch got there first.
   */
  addWithNewNonce(
    batchId: string,
    knownCount: number,
    chainNonce: number,
    sign: (nonce: number) => Promise<SignedTransaction>,
  ): Promise<EvmTransaction | undefined>;
  /** Stores a re-signed transaction of the batch with a nonce it already holds (a fee replacement). */
  addReplacement(batchId: string, nonce: number, signed: SignedTransaction): Promise<EvmTransaction>;
  /** The newest transaction for each nonce in `[from, to)` of the signer, lowest nonce first. */
  newestPerNonce(from: number, to: number): Promise<EvmTransaction[]>;
}

export interface EvmReceipt {
  blockNumber: number;
  blockHash: string;
  success: boolean;
}

/** Thrown by `broadcast` when the node refuses the transaction's fees (underpriced, below the base fee). */
export class FeeTooLowError extends Error {
  override name = "FeeTooLowError";
}

/**
 * The chain through its JSON-RPC endpoint, for one signer. Every failure is thrown with a short
 * message that names neither the RPC URL nor the key.
 */
export interface EvmChain {
  readonly chainId: number;
  /** The signer's address and the anchor address (both checksummed). */
  readonly from: string;
  readonly to: string;
  /** Throws unless the endpoint answers with the configured chain id. */
  probe(): Promise<void>;
  blockNumber(): Promise<number>;
  /** Transactions of the signer mined up to `block` (a number, `latest` or `pending`). */
  nonceAt(block: number | "latest" | "pending"): Promise<number>;
  receipt(hash: string): Promise<EvmReceipt | undefined>;
  /** Whether the node knows the transaction (in its pool or mined). */
  isKnown(hash: string): Promise<boolean>;
  /** Hash of the canonical block `number` (undefined when the chain is shorter). */
  blockHash(number: number): Promise<string | undefined>;
  /** Signs an anchoring transaction carrying `data` with `nonce` at the current fees. */
  sign(nonce: number, data: string): Promise<SignedTransaction>;
  /** Sends a signed transaction; a transaction the node already has (or mined) is not an error. */
  broadcast(raw: string): Promise<void>;
}
