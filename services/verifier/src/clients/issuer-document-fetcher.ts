import { LRUCache } from "lru-cache";
import { type IssuerDocumentFetcher, IssuerFetchError } from "../domain/upstream.js";

/** The outbound HTTP this fetcher needs: the shared outbound request guard's `fetchJson`. */
export interface JsonGetter {
  fetchJson(
    url: string,
    options?: { maxBytes?: number; timeoutMs?: number; headers?: Record<string, string> },
  ): Promise<unknown>;
}

export interface IssuerDocumentFetcherOptions {
  /** How long a fetched document is reused. */
  cacheMs: number;
  /** Documents kept at most (least recently used dropped first). */
  maxEntries: number;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * JWT VC Issuer Metadata and JWKS documents through the outbound request guard (it refuses
 * internal addresses, bounds time and size), each document cached for `cacheMs`: every
 * presentation of an issuer's credentials needs the same one. Failures are not cached; concurrent
 * fetches of one URL share one request.
 */
export function createIssuerDocumentFetcher(
  http: JsonGetter,
  options: IssuerDocumentFetcherOptions,
): IssuerDocumentFetcher {
  const cache = new LRUCache<string, { document: unknown }>({
    max: options.maxEntries,
    ttl: Math.max(1, options.cacheMs),
  });
  const inFlight = new Map<string, Promise<unknown>>();
  return {
    async fetchJson(url) {
      const cached = options.cacheMs > 0 ? cache.get(url) : undefined;
      if (cached) return cached.document;
      let pending = inFlight.get(url);
      if (!pending) {
        pending = http
          .fetchJson(url, {
            timeoutMs: options.timeoutMs,
            maxBytes: options.maxBytes,
            headers: { accept: "application/json" },
          })
          .then(
            (document) => {
              if (options.cacheMs > 0) cache.set(url, { document });
              return document;
            },
            (error: unknown) => {
              throw new IssuerFetchError("the issuer document could not be fetched", { cause: error });
            },
          )
          .finally(() => inFlight.delete(url));
        inFlight.set(url, pending);
      }
      return pending;
    },
  };
}
