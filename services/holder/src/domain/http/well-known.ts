/**
 * A well-known URL for an identifier with a path (RFC 8615 as OID4VCI 1.0 §12.2.2 and RFC 8414 §3
 * apply it): the well-known segment goes between host and path, so issuer
 * `https://host/acme` has `https://host/.well-known/openid-credential-issuer/acme`.
 */
export function wellKnownUrlOf(identifier: string, suffix: string): string {
  const url = new URL(identifier);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/${suffix}${path}`;
}

/** The pre-1.0 placement some servers still use: the well-known segment appended to the identifier. */
export function appendedWellKnownUrlOf(identifier: string, suffix: string): string {
  return `${identifier.replace(/\/+$/, "")}/.well-known/${suffix}`;
}

/** Identifiers compare as strings, ignoring a trailing slash. */
export const sameIdentifier = (a: string, b: string): boolean => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
