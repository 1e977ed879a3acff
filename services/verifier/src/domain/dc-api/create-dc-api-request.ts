import { type RequestObjectClaims, SELF_ISSUED_AUDIENCE } from "@attesto/protocol";
import { clientMetadataOf } from "../get-request-object.js";
import type { SessionSigner, VerifierDependencies } from "../ports.js";
import { requestIssuerOf, signSessionRequestObject } from "../sign-request-object.js";
import type { VerificationSession } from "../verification-session.js";

/** DC API protocol identifiers of OID4VP 1.0 (Appendix A.1). */
export const DC_API_PROTOCOL_UNSIGNED = "openid4vp-v1-unsigned";
export const DC_API_PROTOCOL_SIGNED = "openid4vp-v1-signed";

/**
 * One entry of `navigator.credentials.get({ digital: { requests: [ ... ] } })`: the page passes
 * it to the browser unchanged.
 */
export interface DcApiRequest {
  protocol: typeof DC_API_PROTOCOL_UNSIGNED | typeof DC_API_PROTOCOL_SIGNED;
  data: Record<string, unknown>;
}

/** The request parameters every DC API request carries (Appendix A.2): no response_uri, no state. */
function parametersOf(session: VerificationSession): Record<string, unknown> {
  return {
    response_type: "vp_token",
    response_mode: session.responseMode,
    nonce: session.nonce,
    dcql_query: session.dcqlQuery,
    client_metadata: clientMetadataOf(session),
  };
}

/** Unsigned (Appendix A.3.1): the parameters as they are, without client_id (the wallet uses `origin:<origin>`). */
export const unsignedDcApiRequestOf = (session: VerificationSession): DcApiRequest => ({
  protocol: DC_API_PROTOCOL_UNSIGNED,
  data: parametersOf(session),
});

/**
 * Signed (Appendix A.3.2), at creation (a caller key is never stored for a DC API session):
 * `data.request` is a JWS (`typ: oauth-authz-req+jwt`) carrying the parameters, `client_id` and
 * `expected_origins`, which the wallet checks against the calling origin. Signed by the caller's
 * Ed25519 key (`kid` for a DID, else `jwk`) or, with client_id_prefix, ES256 by the tenant's
 * verifier key in key custody with `x5c`.
 */
export async function signedDcApiRequestOf(
  deps: Pick<VerifierDependencies, "verifierKeys">,
  session: VerificationSession,
  signer: SessionSigner,
  expectedOrigins: string[],
): Promise<DcApiRequest> {
  const claims: RequestObjectClaims = {
    iss: requestIssuerOf(session),
    aud: SELF_ISSUED_AUDIENCE,
    client_id: session.clientId,
    expected_origins: expectedOrigins,
    ...(parametersOf(session) as Omit<RequestObjectClaims, "iss" | "aud" | "client_id" | "iat" | "exp">),
    iat: Math.floor(session.createdAt.getTime() / 1000),
    exp: Math.floor(session.expiresAt.getTime() / 1000),
  };
  const key =
    signer.keyId && signer.x5c
      ? { keyId: signer.keyId, x5c: signer.x5c }
      : { seed: signer.seed as Uint8Array, kid: signer.kid };
  const jwt = await signSessionRequestObject(deps, session.tenant, key, claims);
  return { protocol: DC_API_PROTOCOL_SIGNED, data: { request: jwt } };
}
