/**
 * The scheduler's records. A notarization is one credential; a batch is the Merkle tree of
 * several notarizations whose root is anchored on the ledger in one record. A webhook event is
 * one state transition of one notarization; a delivery is one event to one endpoint.
 */

/** States of a notarization as callers see them (batch states `pending` and `running` are both `pending`). */
export const notarizationStates = ["pending", "anchored", "failed", "dead"] as const;
export type NotarizationState = (typeof notarizationStates)[number];

/** States of a batch (and so of its notarizations); `running` while an attempt is in flight. */
export type BatchState = "pending" | "running" | "failed" | "anchored" | "dead";

export const deliveryStates = ["pending", "delivered", "failed", "dead"] as const;
export type DeliveryState = (typeof deliveryStates)[number] | "running";

export const eventTypes = [
  "credential.notarized",
  "credential.notarization_failed",
  "verification.completed",
  "verification.failed",
  "credential.status_changed",
  "credential.accepted",
  "credential.failure",
  "credential.deleted",
] as const;
export type EventType = (typeof eventTypes)[number];

/** Sent only to endpoints that list them in `events` (an empty list means every other type). */
export const OPT_IN_EVENT_TYPES: readonly EventType[] = ["verification.completed", "verification.failed"];

export interface BatchInclusion {
  batchId: string;
  /** Lowercase hex RFC 6962 root of the batch tree. */
  root: string;
  leafIndex: number;
  treeSize: number;
  inclusionProof: string[];
}

export interface LedgerCheckpoint {
  treeSize: number;
  rootHash: string;
  createdAt: string | undefined;
  signatureJws: string;
}

/** The embedded ledger's record of a batch root (stored anchors without `kind` are these). */
export interface EmbeddedLedgerAnchor {
  kind?: "embedded";
  objectId: string;
  chain: string;
  sequence: number;
  recordedAt: string;
  checkpoint: LedgerCheckpoint;
  inclusionProof: string[];
}

/** The transaction that carries a batch root on an EVM chain, once it has enough confirmations. */
export interface EvmAnchor {
  kind: "evm";
  /** CAIP-2 `eip155:<chain id>`. */
  chain: string;
  chainId: number;
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  /** The signer's address (checksummed). */
  from: string;
  /** The anchor address the transaction was sent to (checksummed). */
  to: string;
  /** Confirmations the transaction had when it was recorded (at least the configured depth). */
  confirmations: number;
}

/** Where a batch root was anchored. */
export type LedgerAnchor = EmbeddedLedgerAnchor | EvmAnchor;

export const isEvmAnchor = (anchor: LedgerAnchor): anchor is EvmAnchor => anchor.kind === "evm";

export interface Notarization {
  /** Allocated at enqueue (random UUID): the credential's `reference.object_id`, never changed. */
  objectId: string;
  /** `reference.chain`, fixed at enqueue. */
  chain: string;
  tenant: string;
  credentialId: string;
  /** The credential issuer's offer the credential was issued for, when it said. */
  offerId: string | undefined;
  digest: string;
  salt: string;
  saltedDigest: string;
  state: NotarizationState;
  createdAt: Date;
  anchoredAt: Date | undefined;
  batch: BatchInclusion | undefined;
  anchor: LedgerAnchor | undefined;
  /** Of the batch's current round. */
  attempts: number;
  lastError: string | undefined;
  nextAttemptAt: Date | undefined;
}

export interface Batch {
  batchId: string;
  root: string;
  size: number;
  state: BatchState;
  attempts: number;
  /** The one queue job allowed to work on the batch; other (stale or duplicate) jobs do nothing. */
  jobId: string | null;
  /** Times the batch went dead: part of the failure event's identity. */
  deadRounds: number;
}

/** A webhook event: its body is fixed once, so that every delivery sends the same bytes. */
export interface WebhookEvent {
  eventId: string;
  tenant: string;
  type: EventType;
  body: string;
  createdAt: Date;
}

/** A new event; `dedupeKey` names the transition, so a transition never makes two events. */
export interface NewWebhookEvent extends WebhookEvent {
  dedupeKey: string;
}

export interface WebhookAttempt {
  attempt: number;
  startedAt: Date;
  finishedAt: Date | undefined;
  statusCode: number | undefined;
  error: string | undefined;
}

export interface WebhookDelivery {
  deliveryId: string;
  eventId: string;
  eventType: EventType;
  tenant: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | undefined;
  lastError: string | undefined;
  nextAttemptAt: Date | undefined;
  deliveredAt: Date | undefined;
  createdAt: Date;
  attemptLog: WebhookAttempt[];
}

/** Jobs on the queue; each names the row it works on. */
export type JobRequest =
  | { queue: "anchor-batch"; data: { batchId: string } }
  | { queue: "dispatch-webhook-event"; data: { eventId: string } }
  | { queue: "deliver-webhook"; data: { deliveryId: string } };

export type QueueName = JobRequest["queue"];
export const queueNames: QueueName[] = ["anchor-batch", "dispatch-webhook-event", "deliver-webhook"];
