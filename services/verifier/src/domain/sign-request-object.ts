import {
  ed25519JwkFromSeed,
  type RequestObjectClaims,
  resolveVerifierClientId,
  signRequestObject,
  signRequestObjectWithX5c,
} from "@attesto/protocol";
import type { VerifierDependencies } from "./ports.js";
import type { VerificationSession } from "./verification-session.js";

/**
 * The key a request object is signed with: the tenant's verifier certificate in key custody (ES256,
 * `x5c`), or the caller's Ed25519 seed (`kid` for a DID verifier, else the public key as `jwk`).
 */
export type RequestSigningKey = { keyId: string; x5c: string[] } | { seed: Uint8Array; kid?: string };

/** The request object's `iss`: an x509 client_id is its own issuer; otherwise the verifier's identifier without the prefix (a DID kid must start with a DID iss). */
export const requestIssuerOf = (session: Pick<VerificationSession, "clientId" | "clientIdPrefix">) =>
  session.clientIdPrefix ? session.clientId : resolveVerifierClientId(session.clientId).issuer;

/**
 * Signs a request object (`typ: oauth-authz-req+jwt`), for a link's request_uri and for a signed DC
 * API request alike. The tenant's key never leaves key custody.
 */
export async function signSessionRequestObject(
  deps: Pick<VerifierDependencies, "verifierKeys">,
  tenant: string,
  key: RequestSigningKey,
  claims: RequestObjectClaims,
): Promise<string> {
  if ("keyId" in key) {
    return signRequestObjectWithX5c(claims, key.x5c, (input) => deps.verifierKeys.sign(tenant, key.keyId, input));
  }
  const privateJwk = ed25519JwkFromSeed(key.seed);
  if (key.kid) return signRequestObject(claims, privateJwk, { kid: key.kid });
  // A URL client id names no key: the public key travels in the header, and a wallet trusts it
  // only because response_uri is on the client id's origin (see the holder's README).
  const { kty, crv, x } = privateJwk;
  return signRequestObject(claims, privateJwk, { jwk: { kty, crv, x } });
}
