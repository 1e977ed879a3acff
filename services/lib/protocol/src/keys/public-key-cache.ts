import type { KeyObject } from "node:crypto";
import { createBoundedCache } from "../cache/bounded-cache.js";
import { jwkThumbprint, jwkThumbprintInput as thumbprintInputOf } from "./jwk-thumbprint.js";
import { importPublicJwk } from "./jws.js";

/** Public keys the platform verifies with: Ed25519 (OKP) and P-256 (EC). */
export interface CacheablePublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
}

export interface PublicKeyCacheOptions {
  /** Distinct keys kept (least recently used go first). */
  max?: number;
  /** How long an unused key is kept, in milliseconds. */
  ttlMs?: number;
  /** Clock for the TTL (tests). */
  now?: () => number;
}

export interface PublicKeyCache {
  /** The key as a node:crypto KeyObject (keys/jws.ts), imported once per distinct key. Throws JwsError on a bad key. */
  importKey(jwk: CacheablePublicJwk): KeyObject;
  /** RFC 7638 SHA-256 thumbprint of the key (a hash of the cache key itself, so nothing to cache). */
  thumbprint(jwk: CacheablePublicJwk): Promise<string>;
  readonly size: number;
}

export const DEFAULT_PUBLIC_KEY_CACHE_SIZE = 2048;
export const DEFAULT_PUBLIC_KEY_CACHE_TTL_MS = 10 * 60_000;

/**
 * A bounded LRU of imported public keys, keyed by the thumbprint input: a wallet's DPoP key, a
 * holder's `cnf.jwk`, an issuer key: for a request's life and the next ones (wallets and issuers
 * reuse their keys), since an import costs a fair part of the signature check it serves.
 * Only public keys are ever held; a failed import is not remembered.
 */
export function createPublicKeyCache(options: PublicKeyCacheOptions = {}): PublicKeyCache {
  const now = options.now;
  const entries = createBoundedCache<KeyObject>({
    max: options.max ?? DEFAULT_PUBLIC_KEY_CACHE_SIZE,
    ttlMs: options.ttlMs ?? DEFAULT_PUBLIC_KEY_CACHE_TTL_MS,
    refreshOnRead: true,
    ...(now ? { now } : {}),
  });
  return {
    importKey(jwk) {
      const input = thumbprintInputOf(jwk);
      let key = entries.get(input);
      if (!key) {
        key = importPublicJwk(JSON.parse(input));
        entries.set(input, key);
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
