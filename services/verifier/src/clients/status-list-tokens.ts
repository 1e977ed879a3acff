import { type DecodedStatusListToken, decodeStatusListToken, STATUS_LIST_TOKEN_MEDIA_TYPE } from "@attesto/protocol";
import { createLoadingCache } from "@attesto/runtime/cache";
import type { OutboundGuard } from "@attesto/runtime/http";
import { StatusListFetchError, type StatusListTokens } from "../domain/upstream.js";

/** The outbound HTTP this source needs: the shared outbound request guard's `request`. */
export type StatusListGetter = Pick<OutboundGuard, "request">;

export interface StatusListTokensOptions {
  /** Longest a token is reused (its `ttl` shortens it, its `exp` ends it); 0 fetches every time. */
  maxCacheSeconds: number;
  /** Tokens kept at most (least recently used dropped first). */
  maxEntries: number;
  /** Wall clock in milliseconds (tests move it). */
  now?: () => number;
}

interface CachedToken {
  token: DecodedStatusListToken;
  /** Until when (ms) the token may be reused: fetch time + min(ttl, maxCacheSeconds), at most `exp`. */
  freshUntil: number;
}

/**
 * Status List Tokens through the outbound request guard (internal addresses refused, https only
 * unless allowed, bounded in time and size), `Accept: application/statuslist+jwt`; the answer must
 * be a 2xx served as that media type. A token is reused until its `ttl` (at most `maxCacheSeconds`)
 * or its `exp`, whichever comes first; failures are not cached; concurrent fetches of one URI share
 * one request.
 */
export function createStatusListTokens(http: StatusListGetter, options: StatusListTokensOptions): StatusListTokens {
  const now = options.now ?? Date.now;
  const maxMs = options.maxCacheSeconds * 1000;
  const cache = createLoadingCache<CachedToken>({ max: options.maxEntries, ttlMs: maxMs, now });

  async function fetchToken(uri: string): Promise<CachedToken> {
    const fetchedAt = now();
    let response: Awaited<ReturnType<StatusListGetter["request"]>>;
    try {
      response = await http.request(uri, { method: "GET", headers: { accept: STATUS_LIST_TOKEN_MEDIA_TYPE } });
    } catch (error) {
      throw new StatusListFetchError("the status list could not be fetched", { cause: error });
    }
    if (response.status < 200 || response.status > 299) {
      throw new StatusListFetchError(`the status list could not be fetched (HTTP ${response.status})`);
    }
    const mediaType = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (mediaType !== STATUS_LIST_TOKEN_MEDIA_TYPE) {
      throw new StatusListFetchError(`the status list is not served as ${STATUS_LIST_TOKEN_MEDIA_TYPE}`);
    }
    const token = decodeStatusListToken(response.text);
    const reuseMs = Math.min(maxMs, (token.ttlSeconds ?? Number.POSITIVE_INFINITY) * 1000);
    const expiresAt = token.expiresAt === undefined ? Number.POSITIVE_INFINITY : token.expiresAt * 1000;
    return { token, freshUntil: Math.min(fetchedAt + reuseMs, expiresAt) };
  }

  return {
    async get(uri) {
      let loaded = false;
      const cached = await cache.get(uri, () => {
        loaded = true;
        return fetchToken(uri);
      });
      if (loaded || now() < cached.freshUntil) return cached.token;
      cache.delete(uri);
      return (await cache.get(uri, () => fetchToken(uri))).token;
    },
  };
}
