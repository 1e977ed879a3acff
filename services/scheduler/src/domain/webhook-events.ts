import { randomUUID } from "node:crypto";
import { type EventType, isEvmAnchor, type LedgerAnchor, type NewWebhookEvent, type Notarization } from "./model.js";

/**
 * Event bodies (README "Events"). Field names are snake_case JSON and stable: receivers parse them.
 * The body is serialized once, at creation, so that every delivery of an event sends the same bytes.
 */
export function newWebhookEvent(event: {
  type: EventType;
  /** One event per key: publishing the same key again creates nothing. */
  dedupeKey: string;
  tenant: string;
  data: object;
  now: Date;
}): NewWebhookEvent {
  const { type, dedupeKey, tenant, data, now } = event;
  const eventId = randomUUID();
  const body = JSON.stringify({ id: eventId, type, created_at: now.toISOString(), tenant, data });
  return { eventId, dedupeKey, tenant, type, body, createdAt: now };
}

/** An event about a notarization: its data starts with the credential and the notarization reference. */
function createEvent(type: EventType, dedupeKey: string, notarization: Notarization, data: object, now: Date) {
  return newWebhookEvent({
    type,
    dedupeKey,
    tenant: notarization.tenant,
    data: {
      offer_id: notarization.offerId ?? null,
      credential_id: notarization.credentialId,
      reference: { chain: notarization.chain, object_id: notarization.objectId },
      ...data,
    },
    now,
  });
}

/**
 * Where the batch root is: `evm` (the transaction on an EVM chain) or `ledger` (the embedded
 * ledger's record, checkpoint and proof).
 */
function anchorData(anchor: LedgerAnchor): object {
  if (isEvmAnchor(anchor)) {
    return {
      evm: {
        chain: anchor.chain,
        chain_id: anchor.chainId,
        transaction_hash: anchor.transactionHash,
        block_number: anchor.blockNumber,
        block_hash: anchor.blockHash,
        from: anchor.from,
        to: anchor.to,
        confirmations: anchor.confirmations,
      },
    };
  }
  return {
    ledger: {
      object_id: anchor.objectId,
      chain: anchor.chain,
      sequence: anchor.sequence,
      recorded_at: anchor.recordedAt,
      checkpoint: {
        tree_size: anchor.checkpoint.treeSize,
        root_hash: anchor.checkpoint.rootHash,
        created_at: anchor.checkpoint.createdAt ?? null,
        signature_jws: anchor.checkpoint.signatureJws,
      },
      inclusion_proof: anchor.inclusionProof,
    },
  };
}

/** `credential.notarized`: everything needed to verify the anchor without asking the scheduler. */
export function notarizedEvent(notarization: Notarization, anchor: LedgerAnchor, now: Date): NewWebhookEvent {
  const batch = notarization.batch;
  if (!batch) throw new Error(`notarization ${notarization.objectId} has no batch`);
  return createEvent(
    `credential.notarized`,
    `credential.notarized:${notarization.objectId}`,
    notarization,
    {
      ...(isEvmAnchor(anchor)
        ? {
            // On a chain, the reference itself names where: chain id, transaction and block.
            reference: {
              chain: notarization.chain,
              object_id: notarization.objectId,
              chain_id: anchor.chainId,
              transaction_hash: anchor.transactionHash,
              block_number: anchor.blockNumber,
            },
          }
        : {}),
      digest: notarization.digest,
      salt: notarization.salt,
      salted_digest: notarization.saltedDigest,
      inclusion_proof: {
        batch_id: batch.batchId,
        root: batch.root,
        leaf_index: batch.leafIndex,
        tree_size: batch.treeSize,
        path: batch.inclusionProof,
      },
      ...anchorData(anchor),
      anchored_at: now.toISOString(),
    },
    now,
  );
}

/** `credential.notarization_failed`: the batch was dead-lettered (round `round`, from 1). */
export function notarizationFailedEvent(
  notarization: Notarization,
  failure: { attempts: number; error: string; round: number },
  now: Date,
): NewWebhookEvent {
  return createEvent(
    "credential.notarization_failed",
    `credential.notarization_failed:${notarization.objectId}:${failure.round}`,
    notarization,
    { digest: notarization.digest, error: { message: failure.error, attempts: failure.attempts } },
    now,
  );
}
