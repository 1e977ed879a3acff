import { createHash } from "node:crypto";
import { createBoundedCache } from "../cache/bounded-cache.js";

export interface SeedPublicKeyCacheOptions {
  max?: number;
  /** How long a derived public key is kept after it was last used, in milliseconds. */
  ttlMs?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

export interface SeedPublicKeyCache {
  /** The public key `derive(seed)` gives, derived once per distinct seed. */
  publicKeyOf(seed: Uint8Array, derive: (seed: Uint8Array) => string): string;
  readonly size: number;
}

/**
 * Public keys derived from private seeds, keyed by SHA-256 of the seed: the same issuer,
 * relying-party or holder seed arrives again and again, and deriving its public key (a scalar
 * multiplication plus a JWK export) costs far more than the hash. Only public keys and seed
 * digests are kept, never a seed; bounded and expiring.
 */
export function createSeedPublicKeyCache(options: SeedPublicKeyCacheOptions = {}): SeedPublicKeyCache {
  const entries = createBoundedCache<string>({
    max: options.max ?? 1024,
    ttlMs: options.ttlMs ?? 10 * 60_000,
    refreshOnRead: true,
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    publicKeyOf(seed, derive) {
      const digest = createHash("sha256").update(seed).digest("base64url");
      let publicKey = entries.get(digest);
      if (publicKey === undefined) {
        publicKey = derive(seed);
        entries.set(digest, publicKey);
      }
      return publicKey;
    },
    get size() {
      return entries.size;
    },
  };
}
