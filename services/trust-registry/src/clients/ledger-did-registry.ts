import type { ledgerV1 } from "@attesto/proto";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { AnchoredDid, DidLedger } from "../domain/ports.js";
import { upstreamError } from "./upstream-error.js";

const parseDocument = (json: string): Record<string, unknown> => {
  const document: unknown = JSON.parse(json);
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new Error("ledger returned a DID document that is not a JSON object");
  }
  return document as Record<string, unknown>;
};

/** The ledger's LedgerService as the domain's DID registry ("Ledger is unavailable" when unreachable). */
export function createLedgerDidRegistry(client: Client<typeof ledgerV1.LedgerService>): DidLedger {
  return {
    async createDid(publicJwk): Promise<AnchoredDid> {
      try {
        const created = await client.createDid({ publicJwkJson: JSON.stringify(publicJwk) });
        return { did: created.did, keyId: created.keyId, document: parseDocument(created.didDocumentJson) };
      } catch (error) {
        throw upstreamError(error, "Ledger");
      }
    },

    async resolveDid(did) {
      try {
        const resolved = await client.resolveDid({ did });
        return { document: parseDocument(resolved.didDocumentJson), deactivated: resolved.deactivated };
      } catch (error) {
        // Unknown, or malformed in the ledger's eyes: either way not a DID on the ledger.
        const code = ConnectError.from(error).code;
        if (code === Code.NotFound || code === Code.InvalidArgument) return undefined;
        throw upstreamError(error, "Ledger");
      }
    },

    async deactivateDid(did) {
      try {
        await client.deactivateDid({ did });
      } catch (error) {
        throw upstreamError(error, "Ledger");
      }
    },
  };
}
