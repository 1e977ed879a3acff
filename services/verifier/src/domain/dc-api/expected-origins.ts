/** At most this many `expected_origins` per request. */
export const MAX_EXPECTED_ORIGINS = 20;

/**
 * A web origin as browsers serialise it (`https://host[:port]`: lowercase, no default port): the
 * form both `expected_origins` and the `Origin` header are compared in. `http:` is accepted (local
 * development). A path other than `/`, a query, a fragment, credentials or an opaque origin
 * (`null`) is not an origin: undefined.
 */
export function parseWebOrigin(value: string): string | undefined {
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(value) || !URL.canParse(value)) return undefined;
  return new URL(value).origin;
}
