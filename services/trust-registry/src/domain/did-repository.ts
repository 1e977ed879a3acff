import type { TenantDid } from "./tenant-did.js";

/** A DID is held by one tenant only. */
export class DidAlreadyHeldError extends Error {
  override name = "DidAlreadyHeldError";
}

/** Where tenants' DIDs are kept (implemented in store/). */
export interface DidRepository {
  /** Throws DidAlreadyHeldError when the DID is already stored (for any tenant). */
  insert(did: Omit<TenantDid, "createdAt" | "status">): Promise<TenantDid>;
  /** The DID's record, whichever tenant holds it (used to tell "yours" from "someone else's"). */
  find(did: string): Promise<TenantDid | undefined>;
  /** The tenant's active DIDs, oldest first. */
  listActive(tenant: string): Promise<TenantDid[]>;
  /** Every active issuer tenant (not deactivated) with its active DIDs, by tenant. */
  listActiveIssuers(): Promise<{ tenant: string; dids: string[] }[]>;
}
