import type { ledgerV1 } from "@attesto/proto";
import { fromRpcError } from "@attesto/runtime/rpc";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { batchIdempotencyKey } from "../domain/anchor-batch.js";
import type { LedgerAnchor } from "../domain/model.js";
import type { LedgerAnchoring } from "../domain/ports.js";
import { rpcFailure } from "./rpc-failure.js";

/**
 * LedgerService as the notary uses it: Notarize the batch root under its idempotency key, then
 * GetRecord for the ledger's signed checkpoint and inclusion proof. A record without a checkpoint
 * yet counts as a failed attempt (retried; the idempotency key keeps it one record).
 */
export function createLedgerAnchoring(client: Client<typeof ledgerV1.LedgerService>): LedgerAnchoring {
  return {
    async anchor({ batchId, root }): Promise<LedgerAnchor> {
      const idempotencyKey = batchIdempotencyKey(batchId);
      let notarized: ledgerV1.NotarizeResponse;
      let record: ledgerV1.GetRecordResponse;
      try {
        notarized = await client.notarize({ digest: root, idempotencyKey });
        record = await client.getRecord({ objectId: notarized.objectId });
      } catch (error) {
        throw rpcFailure("ledger", error);
      }
      if (record.digest !== root) throw new Error("ledger record does not hold the batch root");
      const checkpoint = record.checkpoint;
      if (!checkpoint) throw new Error("ledger checkpoint covering the record is not available yet");
      return {
        objectId: record.objectId,
        chain: record.chain || notarized.chain,
        sequence: Number(record.sequence),
        recordedAt: record.recordedAt ? timestampDate(record.recordedAt).toISOString() : "",
        checkpoint: {
          treeSize: Number(checkpoint.treeSize),
          rootHash: checkpoint.rootHash,
          createdAt: checkpoint.createdAt ? timestampDate(checkpoint.createdAt).toISOString() : undefined,
          signatureJws: checkpoint.signatureJws,
        },
        inclusionProof: [...record.inclusionProof],
      };
    },
    async probe() {
      try {
        await client.getCheckpoint({});
      } catch (error) {
        // 503 `Ledger is unavailable` for the caller (this service's README); other failures keep their meaning.
        throw fromRpcError(error, "Ledger");
      }
    },
  };
}
