import { didOfDidUrl } from "@attesto/protocol";
import { notFound } from "@attesto/runtime/errors";
import type { HolderDependencies } from "../ports.js";

export const DID_NOT_IN_WALLET_MESSAGE = "DID not found";

/**
 * DELETE /v1/did/:did: removes the DID from the holder's wallet (a DID URL names its DID). The
 * DID stays on the ledger: the holder never had custody of its key, and another wallet may hold it.
 * Another holder's DID is 404, as an unknown one.
 */
export async function deleteHolderDid(deps: Pick<HolderDependencies, "dids">, userUuid: string, didUrl: string) {
  const removed = await deps.dids.delete(userUuid, didOfDidUrl(didUrl));
  if (!removed) throw notFound(DID_NOT_IN_WALLET_MESSAGE);
}
