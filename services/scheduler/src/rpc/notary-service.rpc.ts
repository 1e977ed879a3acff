import { notaryV1 } from "@attesto/proto";
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { enqueueNotarization } from "../domain/enqueue-notarization.js";
import {
  type DeliveryState,
  isEvmAnchor,
  type LedgerAnchor,
  type Notarization,
  type NotarizationState,
  type WebhookDelivery,
} from "../domain/model.js";
import type { SchedulerDependencies } from "../domain/ports.js";
import { publishCredentialEvent } from "../domain/publish-credential-event.js";
import { publishVerificationEvent } from "../domain/publish-verification-event.js";
import {
  getAnchorProof,
  getNotarization,
  getReference,
  listNotarizations,
  listWebhookDeliveries,
} from "../domain/queries.js";
import { retryDeadJobs } from "../domain/retry-dead-jobs.js";

type Reply<Schema extends DescMessage> = Promise<MessageInitShape<Schema>>;

const { NotarizationState: WireState, DeliveryState: WireDeliveryState } = notaryV1;

const STATE_TO_WIRE: Record<NotarizationState, notaryV1.NotarizationState> = {
  pending: WireState.PENDING,
  anchored: WireState.ANCHORED,
  failed: WireState.FAILED,
  dead: WireState.DEAD,
};
const STATE_FROM_WIRE = new Map(Object.entries(STATE_TO_WIRE).map(([k, v]) => [v, k as NotarizationState]));

const DELIVERY_TO_WIRE: Record<DeliveryState, notaryV1.DeliveryState> = {
  pending: WireDeliveryState.PENDING,
  running: WireDeliveryState.PENDING,
  delivered: WireDeliveryState.DELIVERED,
  failed: WireDeliveryState.FAILED,
  dead: WireDeliveryState.DEAD,
};
const DELIVERY_FROM_WIRE = new Map<notaryV1.DeliveryState, DeliveryState>([
  [WireDeliveryState.PENDING, "pending"],
  [WireDeliveryState.DELIVERED, "delivered"],
  [WireDeliveryState.FAILED, "failed"],
  [WireDeliveryState.DEAD, "dead"],
]);

const timestamp = (date: Date | string | undefined) =>
  date === undefined || date === "" ? undefined : timestampFromDate(new Date(date));

export function toNotarizationMessage(n: Notarization): MessageInitShape<typeof notaryV1.NotarizationSchema> {
  return {
    objectId: n.objectId,
    chain: n.chain,
    state: STATE_TO_WIRE[n.state],
    tenant: n.tenant,
    credentialId: n.credentialId,
    digest: n.digest,
    salt: n.salt,
    saltedDigest: n.saltedDigest,
    createdAt: timestamp(n.createdAt),
    anchoredAt: timestamp(n.anchoredAt),
    batch: n.batch && {
      batchId: n.batch.batchId,
      root: n.batch.root,
      leafIndex: BigInt(n.batch.leafIndex),
      treeSize: BigInt(n.batch.treeSize),
      inclusionProof: n.batch.inclusionProof,
    },
    ...anchorFields(n.anchor),
    attempts: n.attempts,
    lastError: n.state === "anchored" ? "" : (n.lastError ?? ""),
    nextAttemptAt: n.state === "failed" ? timestamp(n.nextAttemptAt) : undefined,
  };
}

type NotarizationInit = MessageInitShape<typeof notaryV1.NotarizationSchema>;

/** `anchor` (embedded ledger) or `evm_anchor` (EVM chain), by where the batch was anchored. */
function anchorFields(anchor: LedgerAnchor | undefined): Pick<NotarizationInit, "anchor" | "evmAnchor"> {
  if (!anchor) return {};
  if (isEvmAnchor(anchor)) {
    return {
      evmAnchor: {
        chain: anchor.chain,
        chainId: BigInt(anchor.chainId),
        transactionHash: anchor.transactionHash,
        blockNumber: BigInt(anchor.blockNumber),
        blockHash: anchor.blockHash,
        from: anchor.from,
        to: anchor.to,
        confirmations: anchor.confirmations,
      },
    };
  }
  return {
    anchor: {
      objectId: anchor.objectId,
      chain: anchor.chain,
      sequence: BigInt(anchor.sequence),
      recordedAt: timestamp(anchor.recordedAt),
      checkpoint: {
        treeSize: BigInt(anchor.checkpoint.treeSize),
        rootHash: anchor.checkpoint.rootHash,
        createdAt: timestamp(anchor.checkpoint.createdAt),
        signatureJws: anchor.checkpoint.signatureJws,
      },
      inclusionProof: anchor.inclusionProof,
    },
  };
}

function toDeliveryMessage(d: WebhookDelivery): MessageInitShape<typeof notaryV1.WebhookDeliverySchema> {
  return {
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    eventType: d.eventType,
    tenant: d.tenant,
    url: d.url,
    state: DELIVERY_TO_WIRE[d.state],
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode ?? 0,
    lastError: d.lastError ?? "",
    nextAttemptAt: d.state === "failed" ? timestamp(d.nextAttemptAt) : undefined,
    deliveredAt: timestamp(d.deliveredAt),
    createdAt: timestamp(d.createdAt),
    attemptLog: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      startedAt: timestamp(a.startedAt),
      finishedAt: timestamp(a.finishedAt),
      statusCode: a.statusCode ?? 0,
      error: a.error ?? "",
    })),
  };
}

/** attesto.notary.v1.NotaryService: the issuer's enqueue, everyone's status, the operator's dead letters. */
export class NotaryServiceRpc implements ServiceImpl<typeof notaryV1.NotaryService> {
  constructor(private readonly deps: SchedulerDependencies) {}

  async enqueueNotarization(
    request: notaryV1.EnqueueNotarizationRequest,
  ): Reply<typeof notaryV1.EnqueueNotarizationResponseSchema> {
    const notarization = await enqueueNotarization(this.deps, {
      tenant: request.tenant,
      credentialId: request.credentialId,
      digest: request.digest,
      requireLedgerReachable: request.requireLedgerReachable,
      offerId: request.offerId,
    });
    return { objectId: notarization.objectId, chain: notarization.chain, state: STATE_TO_WIRE[notarization.state] };
  }

  async getNotarization(
    request: notaryV1.GetNotarizationRequest,
  ): Reply<typeof notaryV1.GetNotarizationResponseSchema> {
    return { notarization: toNotarizationMessage(await getNotarization(this.deps, request.objectId)) };
  }

  async getReference(request: notaryV1.GetReferenceRequest): Reply<typeof notaryV1.GetReferenceResponseSchema> {
    const notarization = await getReference(this.deps, request.credentialId, request.tenant);
    return { chain: notarization.chain, objectId: notarization.objectId, state: STATE_TO_WIRE[notarization.state] };
  }

  async getAnchorProof(request: notaryV1.GetAnchorProofRequest): Reply<typeof notaryV1.GetAnchorProofResponseSchema> {
    const { objectId, chain, state, salt, saltedDigest, batch, anchor, evmAnchor, anchoredAt } = toNotarizationMessage(
      await getAnchorProof(this.deps, request.objectId, request.digest),
    );
    return { objectId, chain, state, salt, saltedDigest, batch, anchor, evmAnchor, anchoredAt };
  }

  async listNotarizations(
    request: notaryV1.ListNotarizationsRequest,
  ): Reply<typeof notaryV1.ListNotarizationsResponseSchema> {
    const notarizations = await listNotarizations(this.deps, {
      tenant: request.tenant,
      state: STATE_FROM_WIRE.get(request.state),
      limit: request.limit,
    });
    return { notarizations: notarizations.map(toNotarizationMessage) };
  }

  async retryDeadJobs(request: notaryV1.RetryDeadJobsRequest): Reply<typeof notaryV1.RetryDeadJobsResponseSchema> {
    const result = await retryDeadJobs(this.deps, {
      tenant: request.tenant,
      objectIds: request.objectIds,
      deliveryIds: request.deliveryIds,
    });
    return {
      batches: result.batches,
      notarizations: result.notarizations,
      webhookDeliveries: result.webhookDeliveries,
    };
  }

  async publishVerificationEvent(
    request: notaryV1.PublishVerificationEventRequest,
  ): Reply<typeof notaryV1.PublishVerificationEventResponseSchema> {
    const created = await publishVerificationEvent(this.deps, {
      tenant: request.tenant,
      sessionId: request.sessionId,
      verified: request.verified,
      resultJson: request.resultJson,
    });
    return { created };
  }

  async publishCredentialEvent(
    request: notaryV1.PublishCredentialEventRequest,
  ): Reply<typeof notaryV1.PublishCredentialEventResponseSchema> {
    const created = await publishCredentialEvent(this.deps, {
      tenant: request.tenant,
      type: request.type,
      credentialId: request.credentialId,
      offerId: request.offerId,
      eventKey: request.eventKey,
      dataJson: request.dataJson,
    });
    return { created };
  }

  async listWebhookDeliveries(
    request: notaryV1.ListWebhookDeliveriesRequest,
  ): Reply<typeof notaryV1.ListWebhookDeliveriesResponseSchema> {
    const deliveries = await listWebhookDeliveries(this.deps, {
      tenant: request.tenant,
      eventId: request.eventId,
      state: DELIVERY_FROM_WIRE.get(request.state),
      limit: request.limit,
    });
    return { deliveries: deliveries.map(toDeliveryMessage) };
  }
}
