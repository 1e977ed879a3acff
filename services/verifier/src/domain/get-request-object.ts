import {
  DC_SD_JWT_VP_FORMATS,
  MSO_MDOC_VP_FORMATS,
  RESPONSE_ENCRYPTION_ENC_VALUES,
  type RequestObjectClaims,
  SELF_ISSUED_AUDIENCE,
} from "@attesto/protocol";
import { notFound } from "@attesto/runtime/errors";
import type { VerifierDependencies } from "./ports.js";
import { requestIssuerOf, signSessionRequestObject } from "./sign-request-object.js";
import {
  isDcApiMode,
  isEncryptedMode,
  sessionKeyContext,
  statusAt,
  type VerificationSession,
} from "./verification-session.js";

/** Where wallets post their response. */
export const responseUriOf = (verifierUrl: string) => `${verifierUrl}/v1/verifier/presentation`;

/** `client_metadata` of the request object: the RP's display fields, formats, and the response key. */
export function clientMetadataOf(session: VerificationSession): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    ...session.clientMetadata,
    vp_formats_supported: { ...DC_SD_JWT_VP_FORMATS, ...MSO_MDOC_VP_FORMATS },
  };
  if (isEncryptedMode(session.responseMode) && session.encryptionPublicJwk) {
    metadata.jwks = { keys: [session.encryptionPublicJwk] };
    metadata.encrypted_response_enc_values_supported = [...RESPONSE_ENCRYPTION_ENC_VALUES];
  }
  return metadata;
}

/**
 * GET|POST /v1/verifier/request/:requestUriId: the signed request object (JAR) of a pending,
 * unexpired session, signed now with the session's verifier key. It may be fetched any number of
 * times while the session is pending; a `wallet_nonce` posted by the wallet is echoed in it.
 */
export async function getRequestObject(
  deps: Pick<VerifierDependencies, "sessions" | "sealer" | "verifierKeys" | "verifierUrl" | "now">,
  requestUriId: string,
  options: { walletNonce?: string } = {},
): Promise<string> {
  const session = await deps.sessions.findByRequestUriId(requestUriId);
  const now = deps.now();
  const signable = session?.signingKeyEnvelope || (session?.signingKeyId && session.requestX5c);
  // A DC API request travels through the calling page, never by request_uri.
  if (!session || statusAt(session, now) !== "pending" || !signable || isDcApiMode(session.responseMode)) {
    throw notFound("Request object not found or expired");
  }
  const claims: RequestObjectClaims = {
    iss: requestIssuerOf(session),
    aud: SELF_ISSUED_AUDIENCE,
    client_id: session.clientId,
    response_type: "vp_token",
    response_mode: session.responseMode,
    response_uri: responseUriOf(deps.verifierUrl),
    nonce: session.nonce,
    state: session.state,
    dcql_query: session.dcqlQuery,
    client_metadata: clientMetadataOf(session),
    iat: Math.floor(now.getTime() / 1000),
    exp: Math.floor(session.expiresAt.getTime() / 1000),
    ...(options.walletNonce ? { wallet_nonce: options.walletNonce } : {}),
  };
  if (session.clientIdPrefix && session.signingKeyId && session.requestX5c) {
    // ES256 by the tenant's verifier key, in key custody: the key never leaves the trust registry.
    const key = { keyId: session.signingKeyId, x5c: session.requestX5c };
    return signSessionRequestObject(deps, session.tenant, key, claims);
  }
  const seed = deps.sealer.open(session.signingKeyEnvelope as string, sessionKeyContext(session.id));
  try {
    return await signSessionRequestObject(deps, session.tenant, { seed, kid: session.requestKid }, claims);
  } finally {
    seed.fill(0);
  }
}
