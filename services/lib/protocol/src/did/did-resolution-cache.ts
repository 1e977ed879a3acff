import { createBoundedCache } from "../cache/bounded-cache.js";

/** How long a resolved DID document is reused: a deactivation or key rotation is seen within this. */
export const DEFAULT_DID_RESOLUTION_TTL_MS = 30_000;
export const DEFAULT_DID_RESOLUTION_CACHE_SIZE = 1000;

export interface DidResolutionCacheOptions {
  ttlMs?: number;
  max?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

export interface CachedDidResolver<T> {
  (did: string): Promise<T | undefined>;
  /** Resolutions currently remembered. */
  readonly size: number;
}

/**
 * Wraps a DID resolver (the ledger's ResolveDid) with a short-lived, bounded cache: a flow resolves
 * the same issuer or holder DID several times (offer, key proof, verification), each an RPC and a
 * database read at the ledger. Only found documents are kept, for `ttlMs` from resolution (reads
 * do not extend it), so a DID created, rotated or deactivated is seen within that time; "not
 * found" and failures are never cached. Concurrent resolutions of one DID share one call.
 */
export function cacheDidResolution<T extends object>(
  resolve: (did: string) => Promise<T | undefined>,
  options: DidResolutionCacheOptions = {},
): CachedDidResolver<T> {
  const entries = createBoundedCache<T>({
    max: options.max ?? DEFAULT_DID_RESOLUTION_CACHE_SIZE,
    ttlMs: options.ttlMs ?? DEFAULT_DID_RESOLUTION_TTL_MS,
    ...(options.now ? { now: options.now } : {}),
  });
  const inFlight = new Map<string, Promise<T | undefined>>();
  const cached = (did: string): Promise<T | undefined> => {
    const hit = entries.get(did);
    if (hit !== undefined) return Promise.resolve(hit);
    let pending = inFlight.get(did);
    if (!pending) {
      pending = resolve(did)
        .then((resolved) => {
          if (resolved !== undefined) entries.set(did, resolved);
          return resolved;
        })
        .finally(() => inFlight.delete(did));
      inFlight.set(did, pending);
    }
    return pending;
  };
  return Object.defineProperty(cached, "size", { get: () => entries.size }) as CachedDidResolver<T>;
}
