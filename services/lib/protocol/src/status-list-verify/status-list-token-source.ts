import { STATUS_LIST_JWT_MEDIA_TYPE } from "../status-list/sign-status-list-token.js";
import { type DecodedStatusListToken, decodeStatusListToken } from "./read-status-list-token.js";

/**
 * A Status List Token could not be fetched: refused by the outbound policy, timed out, too large,
 * not a 2xx answer or not served as application/statuslist+jwt. The message is safe to show.
 */
export class StatusListFetchError extends Error {
  override name = "StatusListFetchError";
}

/** The outbound HTTP a source needs (the runtime's outbound request guard fits). */
export interface StatusListHttp {
  request(
    url: string,
    request: { method: "GET"; headers: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; text: string }>;
}

/** The cache a source keeps tokens in (the runtime's createLoadingCache fits): bounded in entries and time. */
export interface StatusListCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  delete(key: string): void;
}

/** A token as cached: reused until `freshUntil` (ms of the source's clock). */
export interface CachedStatusListToken {
  token: DecodedStatusListToken;
  freshUntil: number;
}

/** Status List Tokens by URI, structure-checked (not their signature: that depends on the credential). */
export interface StatusListTokenSource {
  /** Throws StatusListFetchError, or StatusListTokenError for an answer that is not a Status List Token. */
  get(uri: string): Promise<DecodedStatusListToken>;
}

/**
 * Fetches Status List Tokens with `Accept: application/statuslist+jwt`; the answer must be a 2xx
 * served as that media type. A token is reused until its `ttl` (at most `maxCacheSeconds`) or its
 * `exp`, whichever comes first (the cache's own time bound should be `maxCacheSeconds` too);
 * failures are not cached.
 */
export function createStatusListTokenSource(
  http: StatusListHttp,
  cache: StatusListCache<CachedStatusListToken>,
  options: { maxCacheSeconds: number; now: () => number },
): StatusListTokenSource {
  const { now } = options;
  async function fetchToken(uri: string): Promise<CachedStatusListToken> {
    const fetchedAt = now();
    let response: Awaited<ReturnType<StatusListHttp["request"]>>;
    try {
      response = await http.request(uri, { method: "GET", headers: { accept: STATUS_LIST_JWT_MEDIA_TYPE } });
    } catch (error) {
      throw new StatusListFetchError("the status list could not be fetched", { cause: error });
    }
    if (response.status < 200 || response.status > 299) {
      throw new StatusListFetchError(`the status list could not be fetched (HTTP ${response.status})`);
    }
    const mediaType = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (mediaType !== STATUS_LIST_JWT_MEDIA_TYPE) {
      throw new StatusListFetchError(`the status list is not served as ${STATUS_LIST_JWT_MEDIA_TYPE}`);
    }
    const token = decodeStatusListToken(response.text);
    const reuseMs = Math.min(options.maxCacheSeconds, token.ttlSeconds ?? Number.POSITIVE_INFINITY) * 1000;
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
