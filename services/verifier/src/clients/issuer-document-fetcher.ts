import { createBoundedCache } from "@attesto/runtime/cache";
import type { OutboundGuard } from "@attesto/runtime/http";
import type { IssuerDocumentFetcher } from "../domain/ports.js";
import { IssuerFetchError } from "../domain/upstream.js";

/** The outbound HTTP this fetcher needs: the shared outbound request guard's `fetchJson`. */
export type JsonGetter = Pick<OutboundGuard, "fetchJson">;

export interface IssuerDocumentFetcherOptions {
  /** How long a fetched document is reused. */
  cacheMs: number;
  /** Documents kept at most (least recently used dropped first). */
  maxEntries: number;
}

/**
 * JWT VC Issuer Metadata and JWKS documents through the outbound request guard (it refuses
 * internal addresses and, unless allowed, plain http; bounds time (OUTBOUND_TIMEOUT_MS) and size
 * (OUTBOUND_MAX_RESPONSE_BYTES)), each document cached for `cacheMs`: every
 * presentation of an issuer's credentials needs the same one. Failures are not cached; concurrent
 * fetches of one URL share one request; `refresh` skips the cached copy.
 */
export function createIssuerDocumentFetcher(
  http: JsonGetter,
  options: IssuerDocumentFetcherOptions,
): IssuerDocumentFetcher {
  const cache = createBoundedCache<{ document: unknown }>({
    max: options.maxEntries,
    ttlMs: Math.max(1, options.cacheMs),
  });
  const inFlight = new Map<string, Promise<unknown>>();
  return {
    async fetchJson(url, fetchOptions = {}) {
      const cached = options.cacheMs > 0 && !fetchOptions.refresh ? cache.get(url) : undefined;
      if (cached) return cached.document;
      let pending = inFlight.get(url);
      if (!pending) {
        pending = http
          .fetchJson(url)
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
