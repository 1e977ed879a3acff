import { randomBytes, randomUUID } from "node:crypto";
import {
  createRequestNonce,
  createResponseEncryptionKey,
  DcqlQueryError,
  decodeEd25519Seed,
  KeyFormatError,
  parseDcqlQuery,
  resolveVerifierClientId,
} from "@attesto/protocol";
import { badRequest, invalidFields } from "@attesto/runtime/errors";
import { authorizationRequestLinkOf, requestLinkPagesOf, requestUriOf } from "./authorization-request-link.js";
import type { VerifierDependencies } from "./dependencies.js";
import {
  type ClientMetadataInput,
  DEFAULT_SESSION_TTL_SECONDS,
  type ResponseMode,
  sessionKeyContext,
  type VerificationSession,
} from "./verification-session.js";

export interface AuthorizationRequestInput {
  dcqlQuery: unknown;
  /** base64url Ed25519 private key (32-byte seed); signs this session's request object only. */
  verifierPrivateKey: string;
  verifierClientId: string;
  responseMode: ResponseMode | undefined;
  clientMetadata: ClientMetadataInput | undefined;
  redirectUri: string | undefined;
  expiresInSeconds: number | undefined;
}

export interface CreatedAuthorizationRequest {
  session_id: string;
  request_uri: string;
  authorization_request: string;
  /** SVG QR code of exactly `authorization_request`. */
  qr_code_url: string;
  /** Public page: the QR code, a same-device button, the session's live status. */
  page_url: string;
  expires_at: string;
}

/**
 * POST /v1/verifier/authorization-request: validates the DCQL query and the verifier key, opens a
 * `pending` session and answers the `openid4vp://` URL a wallet starts from. The verifier key and,
 * for direct_post.jwt, a fresh ephemeral P-256 decryption key are kept sealed until the session ends.
 */
export async function createAuthorizationRequest(
  deps: VerifierDependencies,
  tenant: string,
  input: AuthorizationRequestInput,
): Promise<CreatedAuthorizationRequest> {
  try {
    parseDcqlQuery(input.dcqlQuery);
  } catch (error) {
    if (error instanceof DcqlQueryError) throw badRequest(error.message, { fieldErrors: [error.fieldError] });
    throw error;
  }
  let seed: Uint8Array;
  try {
    // Padding is tolerated: a 32-byte key is 43 base64url characters, 44 with one '='.
    seed = decodeEd25519Seed(input.verifierPrivateKey.replace(/=$/, ""));
  } catch (error) {
    if (error instanceof KeyFormatError) {
      throw invalidFields([
        {
          field: "verifier_private_key",
          message: `must be a base64url Ed25519 private key of 32 bytes (${error.message})`,
        },
      ]);
    }
    throw error;
  }
  const { clientId, kid } = resolveVerifierClientId(input.verifierClientId);
  const id = randomUUID();
  const now = deps.now();
  const responseMode = input.responseMode ?? "direct_post";
  const encryptionKey = responseMode === "direct_post.jwt" ? createResponseEncryptionKey() : undefined;
  const context = sessionKeyContext(id);
  const session: Omit<VerificationSession, "expiresAt"> = {
    id,
    tenant,
    requestUriId: randomBytes(24).toString("base64url"),
    state: createRequestNonce(),
    nonce: createRequestNonce(),
    clientId,
    requestKid: kid,
    responseMode,
    dcqlQuery: input.dcqlQuery,
    clientMetadata: input.clientMetadata,
    redirectUri: input.redirectUri,
    encryptionKid: encryptionKey?.publicJwk.kid,
    encryptionPublicJwk: encryptionKey?.publicJwk,
    signingKeyEnvelope: deps.sealer.seal(seed, context),
    encryptionKeyEnvelope: encryptionKey
      ? deps.sealer.seal(new TextEncoder().encode(JSON.stringify(encryptionKey.privateJwk)), context)
      : undefined,
    status: "pending",
    verificationMode: undefined,
    checkResults: undefined,
    presentationMetadata: undefined,
    createdAt: now,
    submittedAt: undefined,
    verifiedAt: undefined,
  };
  // Its lifetime is capped by the tenant's verifier policies, read by the insert itself.
  const expiresAt = await deps.sessions.insert(session, {
    requestedSeconds: input.expiresInSeconds,
    defaultSeconds: DEFAULT_SESSION_TTL_SECONDS,
  });
  const pages = requestLinkPagesOf(deps.verifierUrl, session.requestUriId);
  return {
    session_id: id,
    request_uri: requestUriOf(deps.verifierUrl, session.requestUriId),
    authorization_request: authorizationRequestLinkOf(deps.verifierUrl, session),
    qr_code_url: pages.qrCodeUrl,
    page_url: pages.pageUrl,
    expires_at: expiresAt.toISOString(),
  };
}
