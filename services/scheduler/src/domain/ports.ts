import type { RetryPolicy } from "./backoff.js";
import type { LedgerAnchor } from "./model.js";
import type { NotarizationStore, WebhookDeliveryStore, WebhookEventStore } from "./stores.js";

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

export interface SchedulerMetricsPort {
  enqueued(): void;
  batchCut(size: number): void;
  anchorAttempt(result: "anchored" | "failed" | "dead"): void;
  anchored(latencySeconds: number): void;
  delivery(result: "delivered" | "failed" | "dead"): void;
}

export interface NotaryDependencies {
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
}

/** The scheduler's log, as the domain uses it. */
export interface DeliveryLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Work created by this process, announced to the background loop that picks it up (structurally a `WakeSignal` of the runtime's polling loop). */
export interface WorkSignal {
  wake(): void;
  subscribe(listener: () => void): () => void;
}
