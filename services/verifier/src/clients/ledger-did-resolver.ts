import type { ledgerV1 } from "@attesto/proto";
import { cacheDidResolution } from "@attesto/protocol";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { LedgerDidResolver } from "../domain/ports.js";
import { type DidResolution, UpstreamUnavailableError } from "../domain/upstream.js";

/** One ResolveDid call. NOT_FOUND / INVALID_ARGUMENT mean "no such DID"; anything else is the ledger failing. */
async function resolveOnLedger(ledger: Client<typeof ledgerV1.LedgerService>, did: string): Promise<DidResolution> {
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
}

/**
 * did:ledger resolution through LedgerService.ResolveDid. Found documents are reused for a few
 * seconds (`cacheDidResolution`): every presentation of an issuer's credentials resolves the same DID.
 */
export function createLedgerDidResolver(ledger: Client<typeof ledgerV1.LedgerService>): LedgerDidResolver {
  const resolveFound = cacheDidResolution(async (did: string) => {
    const resolution = await resolveOnLedger(ledger, did);
    return resolution.found ? resolution : undefined;
  });
  return {
    async resolve(did) {
      return (await resolveFound(did)) ?? { found: false };
    },
  };
}
