import { type CachedStatusListToken, createStatusListTokenSource, type StatusListTokenSource } from "@attesto/protocol";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { OutboundHttp } from "../domain/ports.js";

/** Status List Tokens kept at most (each holds its inflated list, at most MAX_STATUS_LIST_BYTES). */
const STATUS_LIST_CACHE_ENTRIES = 50;

export interface StatusListTokensOptions {
  /** Longest a token is reused (its `ttl` shortens it, its `exp` ends it); 0 fetches every time. */
  maxCacheSeconds: number;
  /** Deadline of one fetch. */
  timeoutMs: number;
  /** Wall clock in milliseconds (tests move it). */
  now: () => number;
}

/**
 * Issuers' Status List Tokens through the holder's outbound HTTP (the outbound request guard:
 * public addresses only unless allowed, https unless allowed, bounded in time and size), cached in
 * the runtime's loading cache (concurrent fetches of one URI share one request) for their `ttl`
 * (the protocol's createStatusListTokenSource: structure checked, failures not cached).
 */
export function createStatusListTokens(http: OutboundHttp, options: StatusListTokensOptions): StatusListTokenSource {
  const cache = createLoadingCache<CachedStatusListToken>({
    max: STATUS_LIST_CACHE_ENTRIES,
    ttlMs: options.maxCacheSeconds * 1000,
    now: options.now,
  });
  return createStatusListTokenSource(
    { request: (url, request) => http.request(url, { ...request, timeoutMs: options.timeoutMs }) },
    cache,
    { maxCacheSeconds: options.maxCacheSeconds, now: options.now },
  );
}
