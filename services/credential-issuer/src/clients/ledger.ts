import type { ledgerV1 } from "@attesto/proto";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Ledger } from "../domain/ports.js";

/** LedgerService: did:ledger resolution. Unreachable -> 503 `unavailable`. */
export function createLedger(client: Client<typeof ledgerV1.LedgerService>): Ledger {
  return {
    async resolveDid(did) {
      try {
        const response = await client.resolveDid({ did });
        return { document: JSON.parse(response.didDocumentJson) as unknown, deactivated: response.deactivated };
      } catch (error) {
        const code = ConnectError.from(error).code;
        if (code === Code.NotFound || code === Code.InvalidArgument) return undefined;
        throw fromRpcError(error, "Ledger");
      }
    },
  };
}
