import { notaryV1 } from "@attesto/proto";
import { anchorProofFromWire } from "@attesto/protocol";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Notary } from "../domain/ports.js";

/**
 * NotaryService (scheduler): enqueue a credential's salted digest for anchoring. The ledger is
 * probed first, so `is_on_chain: true` answers 503 while it is unreachable and nothing is queued.
 */
export function createNotary(client: Client<typeof notaryV1.NotaryService>): Notary {
  return {
    async enqueue({ tenant, credentialId, digest, offerId }) {
      try {
        const response = await client.enqueueNotarization({
          tenant,
          credentialId,
          digest,
          offerId,
          requireLedgerReachable: true,
        });
        return { chain: response.chain, objectId: response.objectId };
      } catch (error) {
        throw fromRpcError(error, "Ledger");
      }
    },
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
    async publishCredentialEvent({ tenant, type, credentialId, offerId, eventKey, data }) {
      try {
        await client.publishCredentialEvent({
          tenant,
          type,
          credentialId,
          offerId,
          eventKey,
          dataJson: JSON.stringify(data),
        });
      } catch (error) {
        throw fromRpcError(error, "Scheduler");
      }
    },
  };
}
