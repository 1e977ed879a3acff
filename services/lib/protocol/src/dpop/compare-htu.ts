/**
 * The form of a URL that DPoP `htu` comparison works on (RFC 9449 §4.3, RFC 3986 §6.2.2/6.2.3):
 * without query and fragment, scheme and host in lower case, the default port dropped, an empty
 * path as "/". A non-empty trailing slash is kept: `/v1/token/` is another resource than `/v1/token`.
 * Undefined when `value` is not an absolute http(s) URL.
 */
export function normalizeHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  // WHATWG URL already lower-cases scheme and host and drops the scheme's default port.
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Whether a proof's `htu` names the endpoint at `endpointUrl` (its public URL). */
export function htuMatches(htu: string, endpointUrl: string): boolean {
  const expected = normalizeHtu(endpointUrl);
  return expected !== undefined && normalizeHtu(htu) === expected;
}
