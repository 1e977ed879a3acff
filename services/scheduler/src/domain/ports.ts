import type { RetryPolicy } from "./backoff.js";
import type {
  Batch,
  BatchInclusion,
  DeliveryState,
  LedgerAnchor,
  NewWebhookEvent,
  Notarization,
  NotarizationState,
  WebhookDelivery,
  WebhookEvent,
} from "./model.js";

/** The ledger as the notary uses it. Failures are thrown (unreachable, refused). */
export interface LedgerAnchoring {
  /** Notarizes `root` under `idempotencyKey` (same key: same record) and returns the record with its proof. */
  anchor(root: string, idempotencyKey: string): Promise<LedgerAnchor>;
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

export interface StrandedWork {
  kind: "batch" | "event" | "delivery";
  id: string;
  jobId: string | null;
}

/**
 * PostgreSQL, behind use-case sized operations. Each write that changes a state also queues the
 * follow-up job in the same transaction: a state is never recorded without the job that moves it on.
 */
export interface SchedulerStore {
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

  /** Inserts an event (once per dedupe key) and queues its dispatch; whether it was new. */
  insertEvent(event: NewWebhookEvent): Promise<boolean>;
  findEvent(eventId: string): Promise<(WebhookEvent & { dispatched: boolean }) | undefined>;
  /** Creates one delivery per URL (once) and queues them; marks the event dispatched. */
  recordEventDispatched(eventId: string, urls: string[]): Promise<number>;

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

  /** Non-terminal work untouched for `olderThanMs`: its job may have been lost. */
  listStranded(olderThanMs: number): Promise<StrandedWork[]>;
  /** Queues a new job for stranded work, unless its job changed meanwhile. */
  requeue(work: StrandedWork): Promise<boolean>;
  /** Counts for the queue-depth gauge. */
  countByState(): Promise<{ notarizations: Record<string, number>; deliveries: Record<string, number> }>;
}

/** The job queue, as the reconciler asks it whether a job still exists. */
export interface JobLiveness {
  isLive(queue: string, jobId: string): Promise<boolean>;
}

export interface SchedulerMetricsPort {
  enqueued(): void;
  batchCut(size: number): void;
  anchorAttempt(result: "anchored" | "failed" | "dead"): void;
  anchored(latencySeconds: number): void;
  delivery(result: "delivered" | "failed" | "dead"): void;
}

export interface NotaryDependencies {
  store: SchedulerStore;
  ledger: LedgerAnchoring;
  webhooks: WebhookDirectory;
  sender: WebhookSender;
  metrics: SchedulerMetricsPort;
  now: () => Date;
  chain: string;
  batch: { intervalMs: number; maxSize: number };
  anchorRetry: RetryPolicy;
  webhookRetry: RetryPolicy;
  /** Version of the scheduler, in the User-Agent of webhook requests. */
  version: string;
  /** Failed webhook deliveries are logged here at warn. */
  log: DeliveryLog;
}

/** The scheduler's log, as the domain uses it. */
export interface DeliveryLog {
  warn(fields: Record<string, unknown>, message: string): void;
}
