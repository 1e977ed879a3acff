import { type CachedStatusListToken, createStatusListTokenSource } from "@attesto/protocol";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { OutboundGuard } from "@attesto/runtime/http";
import type { StatusListTokens } from "../domain/ports.js";

export interface StatusListTokensOptions {
  /** Longest a token is reused (its `ttl` shortens it, its `exp` ends it); 0 fetches every time. */
  maxCacheSeconds: number;
  /** Tokens kept at most (least recently used dropped first). */
  maxEntries: number;
  /** Wall clock in milliseconds (tests move it). */
  now?: () => number;
}

/**
 * Status List Tokens through the outbound request guard (internal addresses refused, https only
 * unless allowed, bounded in time and size), cached in the runtime's loading cache (concurrent
 * fetches of one URI share one request) for their `ttl` (see createStatusListTokenSource).
 */
export function createStatusListTokens(
  http: Pick<OutboundGuard, "request">,
  options: StatusListTokensOptions,
): StatusListTokens {
  const now = options.now ?? Date.now;
  const cache = createLoadingCache<CachedStatusListToken>({
    max: options.maxEntries,
    ttlMs: options.maxCacheSeconds * 1000,
    now,
  });
  return createStatusListTokenSource(http, cache, { maxCacheSeconds: options.maxCacheSeconds, now });
}
