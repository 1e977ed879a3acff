/**
 * The redirect back to the client (RFC 6749 §4.1.2, RFC 9207): `redirect_uri` (verified: it came
 * with the authenticated pushed request) plus the response parameters, keeping its own query.
 */
export function authorizationResponseUrl(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}

/**
 * The CSP `form-action` source that lets the consent form's redirect reach the client: its origin
 * for http(s), its scheme for an app's custom scheme. Browsers check form-action on the redirects
 * that follow a form submission too.
 */
export function redirectSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "https:" || url.protocol === "http:") return url.origin;
  return url.protocol;
}
