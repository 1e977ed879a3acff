import type { ColumnType, Generated } from "kysely";
import type { BatchState, DeliveryState, EventType, LedgerAnchor } from "../domain/model.js";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** One credential to notarize. Written at enqueue; batch columns set once when its batch is cut. */
export interface NotarizationsTable {
  /** Chosen at enqueue (random UUID): the credential's reference.object_id. */
  object_id: string;
  chain: string;
  tenant: string;
  /** Unique: the idempotency key of EnqueueNotarization. */
  credential_id: string;
  /** The issuer's offer id (migration 0002); null when not given. */
  offer_id: string | null;
  digest: string;
  salt: string;
  salted_digest: string;
  batch_id: string | null;
  leaf_index: number | null;
  /** Audit path within the batch tree (hex strings). */
  inclusion_proof: Json<string[]> | null;
  created_at: Generated<Date>;
}

/** A Merkle batch and its anchoring: state machine pending -> running -> (failed -> running)* -> anchored | dead. */
export interface BatchesTable {
  batch_id: string;
  root: string;
  size: number;
  state: BatchState;
  /** Attempts of the current round (reset by an operator retry). */
  attempts: Generated<number>;
  /** The job allowed to work on the batch; set with every job queued for it. */
  job_id: string | null;
  next_attempt_at: Timestamp | null;
  last_error: string | null;
  dead_rounds: Generated<number>;
  anchor: Json<LedgerAnchor> | null;
  anchored_at: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One event per notarization transition (dedupe_key unique); body fixed at creation. */
export interface WebhookEventsTable {
  event_id: string;
  dedupe_key: string;
  tenant: string;
  type: EventType;
  body: string;
  job_id: string | null;
  dispatched_at: Timestamp | null;
  created_at: Generated<Date>;
}

/** One event to one endpoint: pending -> running -> (failed -> running)* -> delivered | dead. */
export interface WebhookDeliveriesTable {
  delivery_id: string;
  event_id: string;
  event_type: EventType;
  tenant: string;
  url: string;
  state: DeliveryState;
  attempts: Generated<number>;
  job_id: string | null;
  next_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** The delivery log: one row per attempt, written when it starts and completed when it ends. */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  started_at: Generated<Date>;
  finished_at: Timestamp | null;
  status_code: number | null;
  error: string | null;
}

/** A signed anchoring transaction (LEDGER_BACKEND=evm), written before it is broadcast. */
export interface EvmTransactionsTable {
  hash: string;
  batch_id: string;
  chain_id: ColumnType<string, number | string, number | string>;
  sender: string;
  nonce: ColumnType<string, number | string, number | string>;
  /** The signed transaction (0x hex), broadcast again when the node has lost it. */
  raw: string;
  created_at: Timestamp;
}

/** The next nonce to give a new anchoring transaction of a signer. */
export interface EvmNoncesTable {
  chain_id: ColumnType<string, number | string, number | string>;
  sender: string;
  next_nonce: ColumnType<string, number | string, number | string>;
}

export interface SchedulerTables {
  evm_transactions: EvmTransactionsTable;
  evm_nonces: EvmNoncesTable;
  notarizations: NotarizationsTable;
  batches: BatchesTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
