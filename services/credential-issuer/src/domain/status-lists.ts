import type { StatusListBits } from "@attesto/protocol";

/** A credential's entry in a status list: the `status.status_list` claim's list and `idx`. */
export interface StatusEntry {
  listId: string;
  idx: number;
}

/**
 * The key a list's tokens are signed with, the key that signed its credentials: `x509` (the
 * tenant's custody key) or `<kid> <JWK thumbprint>` of a DID-path key, whose private key is sealed
 * with the offer `signingOfferId`.
 */
export interface StatusListSigner {
  key: string;
  signingOfferId?: string;
}

/** One consistent read of a list: its bytes and the version they are at. */
export interface StatusListSnapshot {
  id: string;
  tenant: string;
  signer: StatusListSigner;
  bits: StatusListBits;
  size: number;
  statuses: Uint8Array;
  /** Raised by every status change of an entry of the list. */
  version: string;
}

/** Random index draws for status list entries (status-index-draws.ts): CSPRNG, uniform. */
export interface StatusIndexDraws {
  /**
   * `count` independent uniform draws in [0, 2^30). The store takes each modulo the list's size (a
   * power of two, so still uniform) and keeps the first free ones: each is uniform among the free.
   */
  draws(count: number): number[];
  /** Up to `count` distinct members of `free`, uniformly at random (a nearly full list). */
  among(free: number[], count: number): number[];
}

export interface AllocateStatusEntriesInput {
  tenant: string;
  signer: StatusListSigner;
  count: number;
  /** Entries of a list opened for this allocation. */
  size: number;
  bits: StatusListBits;
  now: Date;
}

/** The tenants' status lists (store/status-list.store.ts). Every query is scoped to one tenant. */
export interface StatusListRepository {
  /**
   * `count` entries from the tenant's open lists of this signer, at indexes chosen from `draws`; a
   * full list is closed and a new one of `size` entries opened. Concurrent callers never get the
   * same entry, on any replica.
   */
  allocate(input: AllocateStatusEntriesInput, draws: StatusIndexDraws): Promise<StatusEntry[]>;
  /** The list's version only (cheap: whether a signed token is still current). */
  findVersion(tenant: string, listId: string): Promise<string | undefined>;
  find(tenant: string, listId: string): Promise<StatusListSnapshot | undefined>;
}
