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

/**
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
