import type { ledgerV1 } from "@attesto/proto";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { type LedgerDidResolver, UpstreamUnavailableError } from "../domain/upstream.js";

/** did:ledger resolution through LedgerService.ResolveDid. NOT_FOUND / INVALID_ARGUMENT mean "no such DID". */
export function createLedgerDidResolver(ledger: Client<typeof ledgerV1.LedgerService>): LedgerDidResolver {
  return {
    async resolve(did) {
      let response: ledgerV1.ResolveDidResponse;
      try {
        response = await ledger.resolveDid({ did });
      } catch (error) {
        const code = ConnectError.from(error).code;
        if (code === Code.NotFound || code === Code.InvalidArgument) return { found: false };
        throw new UpstreamUnavailableError("ledger ResolveDid failed", { cause: error });
      }
      let document: unknown;
      try {
        document = JSON.parse(response.didDocumentJson);
      } catch (error) {
        throw new UpstreamUnavailableError("ledger returned a DID document that is not JSON", { cause: error });
      }
      if (typeof document !== "object" || document === null || Array.isArray(document)) {
        throw new UpstreamUnavailableError("ledger returned a DID document that is not an object");
      }
      return { found: true, document: document as Record<string, unknown>, deactivated: response.deactivated };
    },
  };
}
