import {
  type DidDocumentResolver,
  DidKeyResolutionError,
  type DidVerificationMethod,
  resolveDidUrlKey,
} from "@attesto/protocol";
import type { HolderDependencies } from "../ports.js";

/** did:ledger documents through the ledger; a deactivated DID has no usable key. */
export const ledgerDidResolver =
  (deps: Pick<HolderDependencies, "ledger">): DidDocumentResolver =>
  async (did) => {
    if (!did.startsWith("did:ledger:")) return undefined;
    const resolved = await deps.ledger.resolveDid(did);
    return resolved && !resolved.deactivated ? resolved.document : undefined;
  };

/**
 * The key a DID URL names (did:key locally, did:ledger through the ledger; other methods are not
 * resolvable). Resolution failures are DidKeyResolutionError; an unreachable ledger is 503.
 */
export async function resolveDidKey(
  deps: Pick<HolderDependencies, "ledger">,
  didUrl: string,
): Promise<DidVerificationMethod & { did: string }> {
  const did = didUrl.split("#")[0] ?? "";
  if (!did.startsWith("did:key:") && !did.startsWith("did:ledger:")) {
    throw new DidKeyResolutionError(`DID method of ${did.split(":").slice(0, 2).join(":")} is not supported`);
  }
  return resolveDidUrlKey(didUrl, ledgerDidResolver(deps));
}
