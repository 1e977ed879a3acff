import { notaryV1 } from "@attesto/proto";
import { anchorProofFromWire } from "@attesto/protocol";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Notary } from "../domain/ports.js";

/** The scheduler's NotaryService as the holder uses it: GetAnchorProof only. Unreachable => 503. */
export function createNotary(client: Client<typeof notaryV1.NotaryService>): Notary {
  return {
    async anchorProof({ objectId, digest }) {
      try {
        const proof = await client.getAnchorProof({ objectId, digest });
        const anchored = proof.state === notaryV1.NotarizationState.ANCHORED;
        return anchorProofFromWire(proof, anchored ? "anchored" : "pending");
      } catch (error) {
        if (ConnectError.from(error).code === Code.NotFound) return undefined;
        throw fromRpcError(error, "Scheduler");
      }
    },
  };
}
