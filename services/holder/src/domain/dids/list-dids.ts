import type { HolderDid } from "../model.js";
import type { HolderDependencies } from "../ports.js";

/** GET /v1/did: the holder's did:ledger DIDs, oldest first. */
export const listHolderDids = (deps: Pick<HolderDependencies, "dids">, userUuid: string): Promise<HolderDid[]> =>
  deps.dids.list(userUuid);
