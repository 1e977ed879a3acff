import type { ledgerV1 } from "@attesto/proto";
import { type CacheInvalidations, createCoherentCache, NO_INVALIDATIONS } from "@attesto/runtime/cache";
import { fromRpcError } from "@attesto/runtime/rpc";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Ledger } from "../domain/ports.js";

/** The cache topic every change of the ledger's `dids` table notifies (its migration 0002's trigger). */
export const LEDGER_DIDS_TOPIC = "ledger.dids";
/** Resolved DIDs remembered at once (the least recently used goes first). */
const CACHED_DIDS = 1_000;

type Resolved = Awaited<ReturnType<Ledger["resolveDid"]>>;

/**
 * LedgerService: did:ledger resolution. Unreachable -> 503 `unavailable`. Resolutions (the tenant's
 * own DID on every DID-path offer and credential) are kept in a coherent cache that every committed
 * change of the ledger's DIDs empties before the next read, on every replica. Guarantee kept: a DID
 * deactivated or updated through any replica is what the next offer or credential sees.
 */
export function createLedger(
  client: Client<typeof ledgerV1.LedgerService>,
  invalidations: CacheInvalidations = NO_INVALIDATIONS,
): Ledger {
  const resolutions = createCoherentCache<Resolved>({ invalidations, topics: [LEDGER_DIDS_TOPIC], max: CACHED_DIDS });
  const resolve = async (did: string): Promise<Resolved> => {
    try {
      const response = await client.resolveDid({ did });
      return { document: JSON.parse(response.didDocumentJson) as unknown, deactivated: response.deactivated };
    } catch (error) {
      const code = ConnectError.from(error).code;
      if (code === Code.NotFound || code === Code.InvalidArgument) return undefined;
      throw fromRpcError(error, "Ledger");
    }
  };
  return {
    resolveDid: (did, scope) => resolutions.get(did, () => resolve(did), scope),
  };
}
