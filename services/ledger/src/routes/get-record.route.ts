import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { getRecord } from "../domain/get-record.js";
import { CHAIN_NAME } from "../domain/notarize.js";
import type { LedgerDependencies } from "../domain/ports.js";
import { toCheckpointBody, zCheckpoint } from "./z-checkpoint.js";

// The router already refuses path parameters over 100 characters (414).
const zParams = z.object({ objectId: z.string().min(1).max(100, "must be at most 100 characters") });

const zRecord = z.object({
  object_id: z.string(),
  digest: z.string(),
  chain: z.string(),
  sequence: z.number().int(),
  recorded_at: z.string(),
  /** RFC 6962 leaf hash of the entry {created_at: recorded_at, kind: "notarization", payload: {digest, object_id}, sequence}. */
  leaf_hash: z.string(),
  checkpoint: zCheckpoint.nullable(),
  inclusion_proof: z.array(z.string()),
});

/** GET /records/:objectId: a notarization record with its inclusion proof and the checkpoint it leads to. */
export function registerGetRecordRoute(app: App, dependencies: LedgerDependencies): void {
  app.get(
    "/records/:objectId",
    { schema: { params: zParams, response: { 200: zRecord } }, config: { answers: [404] } },
    async (request) => {
      const { record, leafHash, checkpoint, inclusionProof } = await getRecord(dependencies, request.params.objectId);
      return {
        object_id: record.objectId,
        digest: record.digest,
        chain: CHAIN_NAME,
        sequence: record.sequence,
        recorded_at: record.recordedAt.toISOString(),
        leaf_hash: leafHash,
        checkpoint: checkpoint ? toCheckpointBody(checkpoint) : null,
        inclusion_proof: inclusionProof,
      };
    },
  );
}
