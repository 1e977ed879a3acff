import type { HolderDependencies } from "../dependencies.js";
import type { HolderDid } from "../model.js";

/** GET /v1/did: the holder's did:ledger DIDs, oldest first. */
export const listHolderDids = (deps: Pick<HolderDependencies, "dids">, userUuid: string): Promise<HolderDid[]> =>
  deps.dids.list(userUuid);
