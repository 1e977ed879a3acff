import { createHash } from "node:crypto";
import { createBoundedCache } from "../cache/bounded-cache.js";
import type { Certificate, VerifiedX5cChain } from "./x5c-chain-types.js";

/** A validated chain and the period in which every certificate it relied on (anchor included) is valid. */
export interface ValidatedX5cChain {
  chain: VerifiedX5cChain;
  validFrom: Date;
  validUntil: Date;
}

export type X5cChainValidator = (x5c: string[], trustAnchors: Certificate[], now: Date) => Promise<ValidatedX5cChain>;

export interface X5cChainCache {
  /** The validated chain: from the cache while `now` lies in its validity period, else from `validate`. */
  verify(x5c: string[], trustAnchors: Certificate[], now: Date, validate: X5cChainValidator): Promise<VerifiedX5cChain>;
  readonly size: number;
}

export const DEFAULT_X5C_CHAIN_CACHE_SIZE = 512;

const anchorDigests = new WeakMap<Certificate, string>();

/** SHA-256 of one anchor's DER, computed once per parsed certificate. */
function anchorDigest(anchor: Certificate): string {
  let digest = anchorDigests.get(anchor);
  if (!digest) {
    digest = createHash("sha256").update(new Uint8Array(anchor.rawData)).digest("base64url");
    anchorDigests.set(anchor, digest);
  }
  return digest;
}

/** SHA-256 over the chain's certificates and the (order-independent) anchor set. */
function cacheKeyOf(x5c: string[], trustAnchors: Certificate[]): string {
  const hash = createHash("sha256");
  for (const certificate of x5c) hash.update(certificate).update("\n");
  hash.update("|");
  for (const digest of trustAnchors.map(anchorDigest).sort()) hash.update(digest).update("\n");
  return hash.digest("base64url");
}

/** A defensive copy, so a caller that edits its result cannot change what the next caller gets. */
const copyOf = (chain: VerifiedX5cChain): VerifiedX5cChain => ({
  ...chain,
  leafPublicJwk: { ...chain.leafPublicJwk },
  authorityKeyIds: [...chain.authorityKeyIds],
});

/**
 * Successful x5c validations, bounded (least recently used first out), keyed by a digest of the
 * chain and the trust anchors, each kept only for the period in which all its certificates are
 * valid: outside it the chain is validated again (and then refused as expired or not yet valid).
 * Failures are never cached. Holds public certificates' results only.
 */
export function createX5cChainCache(options: { max?: number } = {}): X5cChainCache {
  const entries = createBoundedCache<ValidatedX5cChain>({ max: options.max ?? DEFAULT_X5C_CHAIN_CACHE_SIZE });
  return {
    async verify(x5c, trustAnchors, now, validate) {
      const key = cacheKeyOf(x5c, trustAnchors);
      const cached = entries.get(key);
      const time = now.getTime();
      if (cached && time >= cached.validFrom.getTime() && time <= cached.validUntil.getTime()) {
        return copyOf(cached.chain);
      }
      const validated = await validate(x5c, trustAnchors, now);
      entries.set(key, validated);
      return copyOf(validated.chain);
    },
    get size() {
      return entries.size;
    },
  };
}

/** The process-wide cache verifyX5cChain uses. */
export const x5cChainCache: X5cChainCache = createX5cChainCache();
