import type { ledgerV1 } from "@attesto/proto";
import { cacheDidResolution, type DidResolutionCacheOptions } from "@attesto/protocol";
import { unavailable } from "@attesto/runtime/errors";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Ledger } from "../domain/ports.js";

const parseDocument = (json: string): unknown => JSON.parse(json);

/**
 * The ledger's LedgerService as the holder uses it. Unreachable => 503 "Ledger is unavailable".
 * Found DID documents are reused for a few seconds (`cacheDidResolution`): a receive resolves the
 * issuer's DID more than once.
 */
export function createLedger(
  client: Client<typeof ledgerV1.LedgerService>,
  options: DidResolutionCacheOptions = {},
): Ledger {
  const resolveDid = cacheDidResolution(async (did: string) => {
    try {
      const resolved = await client.resolveDid({ did });
      return { document: parseDocument(resolved.didDocumentJson), deactivated: resolved.deactivated };
    } catch (error) {
      // Unknown, or malformed in the ledger's eyes: either way not a DID on the ledger.
      const code = ConnectError.from(error).code;
      if (code === Code.NotFound || code === Code.InvalidArgument) return undefined;
      throw fromRpcError(error, "Ledger");
    }
  }, options);
  return {
    async createDid(publicJwk) {
      try {
        const created = await client.createDid({ publicJwkJson: JSON.stringify(publicJwk) });
        return { did: created.did, keyId: created.keyId, document: parseDocument(created.didDocumentJson) };
      } catch (error) {
        throw fromRpcError(error, "Ledger");
      }
    },

    resolveDid,

    /**
     * GetCheckpoint has no side effect worth avoiding and every ledger answers it; any answer
     * (a checkpoint, or NOT_FOUND before the first one) means the ledger is reachable.
     */
    async assertReachable() {
      try {
        await client.getCheckpoint({});
      } catch (error) {
        if (ConnectError.from(error).code === Code.NotFound) return;
        const mapped = fromRpcError(error, "Ledger");
        if (mapped.status >= 500) throw unavailable("Ledger is unavailable", { cause: error });
      }
    },
  };
}
