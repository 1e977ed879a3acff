import { importJWK, type JWK } from "jose";
import { createBoundedCache } from "../cache/bounded-cache.js";
import { jwkThumbprint, jwkThumbprintInput as thumbprintInputOf } from "./jwk-thumbprint.js";

/** Public keys the platform verifies with: Ed25519 (OKP) and P-256 (EC). */
export interface CacheablePublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
}

export type PublicKeyAlgorithm = "ES256" | "EdDSA";

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

export interface PublicKeyCacheOptions {
  /** Distinct keys kept (least recently used go first). */
  max?: number;
  /** How long an unused key is kept, in milliseconds. */
  ttlMs?: number;
  /** Clock for the TTL (tests). */
  now?: () => number;
}

export interface PublicKeyCache {
  /** The key imported for `alg` (jose's `importJWK`), imported once per distinct key. Throws on a bad key. */
  importKey(jwk: CacheablePublicJwk, alg: PublicKeyAlgorithm): Promise<ImportedKey>;
  /** RFC 7638 SHA-256 thumbprint of the key (a hash of the cache key itself, so nothing to cache). */
  thumbprint(jwk: CacheablePublicJwk): Promise<string>;
  readonly size: number;
}

export const DEFAULT_PUBLIC_KEY_CACHE_SIZE = 2048;
export const DEFAULT_PUBLIC_KEY_CACHE_TTL_MS = 10 * 60_000;

/**
 * A bounded LRU of imported public keys, keyed by the thumbprint input: a wallet's DPoP key, a
 * holder's `cnf.jwk`, an issuer key. Importing a JWK goes through WebCrypto and costs about ten
 * times the signature check it serves; wallets and issuers reuse their keys.
 * Only public keys are ever held; a failed import is not remembered.
 */
export function createPublicKeyCache(options: PublicKeyCacheOptions = {}): PublicKeyCache {
  const now = options.now;
  const entries = createBoundedCache<Map<string, Promise<ImportedKey>>>({
    max: options.max ?? DEFAULT_PUBLIC_KEY_CACHE_SIZE,
    ttlMs: options.ttlMs ?? DEFAULT_PUBLIC_KEY_CACHE_TTL_MS,
    refreshOnRead: true,
    ...(now ? { now } : {}),
  });
  const keysOf = (input: string) => {
    let keys = entries.get(input);
    if (!keys) {
      keys = new Map();
      entries.set(input, keys);
    }
    return keys;
  };
  return {
    importKey(jwk, alg) {
      const input = thumbprintInputOf(jwk);
      const keys = keysOf(input);
      let key = keys.get(alg);
      if (!key) {
        key = importJWK(JSON.parse(input) as JWK, alg) as Promise<ImportedKey>;
        keys.set(alg, key);
        key.catch(() => keys.delete(alg));
      }
      return key;
    },
    thumbprint(jwk) {
      return Promise.resolve(jwkThumbprint(jwk));
    },
    get size() {
      return entries.size;
    },
  };
}

/** The process-wide cache the protocol verifiers share. */
export const publicKeyCache: PublicKeyCache = createPublicKeyCache();
