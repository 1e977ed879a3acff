import type { ledgerV1 } from "@attesto/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { createDid } from "../domain/create-did.js";
import { deactivateDid } from "../domain/deactivate-did.js";
import { getLatestCheckpoint } from "../domain/get-latest-checkpoint.js";
import { getRecord } from "../domain/get-record.js";
import { CHAIN_NAME, notarize } from "../domain/notarize.js";
import type { LedgerDependencies } from "../domain/ports.js";
import { resolveDid } from "../domain/resolve-did.js";
import { toCheckpointMessage } from "./to-checkpoint-message.js";

type Service = typeof ledgerV1.LedgerService;
type Response<S extends keyof Service["method"]> = Promise<MessageInitShape<Service["method"][S]["output"]>>;

/** attesto.ledger.v1.LedgerService: the embedded ledger node behind the scheduler's ledger client. */
export class LedgerServiceRpc implements ServiceImpl<Service> {
  constructor(private readonly dependencies: LedgerDependencies) {}

  async createDid(request: ledgerV1.CreateDidRequest): Response<"createDid"> {
    const created = await createDid(this.dependencies, request.publicJwkJson);
    return {
      did: created.did,
      keyId: created.keyId,
      didDocumentJson: JSON.stringify(created.document),
      sequence: BigInt(created.sequence),
    };
  }

  async resolveDid(request: ledgerV1.ResolveDidRequest): Response<"resolveDid"> {
    const record = await resolveDid(this.dependencies, request.did);
    return { didDocumentJson: JSON.stringify(record.document), deactivated: record.deactivated };
  }

  async deactivateDid(request: ledgerV1.DeactivateDidRequest): Response<"deactivateDid"> {
    await deactivateDid(this.dependencies, request.did);
    return {};
  }

  async notarize(request: ledgerV1.NotarizeRequest): Response<"notarize"> {
    const record = await notarize(this.dependencies, {
      digest: request.digest,
      idempotencyKey: request.idempotencyKey,
    });
    return { objectId: record.objectId, chain: CHAIN_NAME, sequence: BigInt(record.sequence) };
  }

  async getRecord(request: ledgerV1.GetRecordRequest): Response<"getRecord"> {
    const { record, checkpoint, inclusionProof } = await getRecord(this.dependencies, request.objectId);
    return {
      objectId: record.objectId,
      digest: record.digest,
      chain: CHAIN_NAME,
      sequence: BigInt(record.sequence),
      recordedAt: timestampFromDate(record.recordedAt),
      checkpoint: checkpoint && toCheckpointMessage(checkpoint),
      inclusionProof,
    };
  }

  async getCheckpoint(): Response<"getCheckpoint"> {
    const { checkpoint, publicJwk } = await getLatestCheckpoint(this.dependencies);
    return { checkpoint: toCheckpointMessage(checkpoint), publicJwkJson: JSON.stringify(publicJwk) };
  }
}
