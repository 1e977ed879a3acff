import { randomUUID } from "node:crypto";
import {
  createRequestNonce,
  createResponseEncryptionKey,
  DcqlQueryError,
  decodeEd25519Seed,
  KeyFormatError,
  parseDcqlQuery,
  pooledRandomBytes,
  resolveVerifierClientId,
} from "@attesto/protocol";
import { invalidFields } from "@attesto/runtime/errors";
import { authorizationRequestLinkOf, requestLinkPagesOf, requestUriOf } from "./authorization-request-link.js";
import type { DcApiRequest } from "./dc-api/create-dc-api-request.js";
import { checkDcApiFields, openDcApiSession, UNSIGNED_CLIENT_ID } from "./dc-api/create-dc-api-session.js";
import { verifierCertificateOf } from "./policy/active-policy.js";
import type { SessionSigner, VerifierDependencies } from "./ports.js";
import {
  type ClientMetadataInput,
  DEFAULT_SESSION_TTL_SECONDS,
  isDcApiMode,
  isEncryptedMode,
  type ResponseMode,
  sessionKeyContext,
  type VerificationSession,
} from "./verification-session.js";
import { type ClientIdPrefix, x509ClientIdOf } from "./x509/client-id-prefix.js";

export interface AuthorizationRequestInput {
  dcqlQuery: unknown;
  /** base64url Ed25519 private key (32-byte seed); signs this session's request object only. Never with clientIdPrefix. */
  verifierPrivateKey: string | undefined;
  /** The verifier's DID or URL (with verifierPrivateKey). Never with clientIdPrefix. */
  verifierClientId: string | undefined;
  /** x509_hash | x509_san_dns: the tenant's verifier certificate signs instead of a caller key. */
  clientIdPrefix: ClientIdPrefix | undefined;
  /** DC API response modes: the web origins allowed to call the wallet (required when signed). */
  expectedOrigins: string[] | undefined;
  responseMode: ResponseMode | undefined;
  clientMetadata: ClientMetadataInput | undefined;
  redirectUri: string | undefined;
  expiresInSeconds: number | undefined;
}

/** The answer for a DC API response mode: the request travels through the page, so no link, QR code or page. */
export interface CreatedDcApiRequest {
  session_id: string;
  /** With client_id_prefix: the signed request's client_id. */
  client_id?: string;
  dc_api_request: DcApiRequest;
  expires_at: string;
}

export interface CreatedAuthorizationRequest {
  session_id: string;
  /** With client_id_prefix: the session's client_id (as in the link, the request object and the KB-JWT audience). */
  client_id?: string;
  request_uri: string;
  authorization_request: string;
  /** SVG QR code of exactly `authorization_request`. */
  qr_code_url: string;
  /** Public page: the QR code, a same-device button, the session's live status. */
  page_url: string;
  expires_at: string;
}

const callerKeyFieldErrors = (input: AuthorizationRequestInput) => [
  ...(input.verifierPrivateKey === undefined
    ? [{ field: "verifier_private_key", message: "is required (base64url Ed25519 private key, 32 bytes)" }]
    : []),
  ...(input.verifierClientId === undefined
    ? [{ field: "verifier_client_id", message: "is required (the verifier's DID or URL)" }]
    : []),
];

/** With client_id_prefix the tenant's key signs: a caller key or client id as well is a 400 naming both fields. */
function assertNoCallerKey(input: AuthorizationRequestInput): void {
  const mixed = [
    ["verifier_private_key", input.verifierPrivateKey],
    ["verifier_client_id", input.verifierClientId],
  ].filter(([, value]) => value !== undefined);
  if (mixed.length === 0) return;
  throw invalidFields(
    mixed.map(([field]) => ({
      field: field as string,
      message: `must not be sent with client_id_prefix (the tenant's verifier certificate signs): send either client_id_prefix or ${field}`,
    })),
  );
}

/** What is wrong with a caller key (base64url Ed25519 seed of 32 bytes), undefined when it is one. */
export function ed25519SeedProblem(value: string): string | undefined {
  try {
    // Padding is tolerated: a 32-byte key is 43 base64url characters, 44 with one '='.
    decodeEd25519Seed(value.replace(/=$/, ""));
    return undefined;
  } catch (error) {
    if (error instanceof KeyFormatError) {
      return `must be a base64url Ed25519 private key of 32 bytes (${error.message})`;
    }
    throw error;
  }
}

/** Today's mode: the caller's Ed25519 key under its DID or URL client_id. */
function callerKeySigner(input: AuthorizationRequestInput): SessionSigner {
  const missing = callerKeyFieldErrors(input);
  if (missing.length > 0) throw invalidFields(missing);
  const problem = ed25519SeedProblem(input.verifierPrivateKey as string);
  if (problem) throw invalidFields([{ field: "verifier_private_key", message: problem }]);
  const seed = decodeEd25519Seed((input.verifierPrivateKey as string).replace(/=$/, ""));
  const { clientId, kid } = resolveVerifierClientId(input.verifierClientId as string);
  return { clientId, kid, seed };
}

/**
 * `client_id_prefix`: the tenant's verifier certificate (the one its verifier policies name, else
 * the platform's) signs in key custody; the caller sends no key and no client id (400 naming both
 * fields when it does).
 */
async function tenantVerifierSigner(
  deps: Pick<VerifierDependencies, "verifierUrl" | "policies" | "verifierKeys">,
  tenant: string,
  prefix: ClientIdPrefix,
): Promise<SessionSigner> {
  const verifierHost = new URL(deps.verifierUrl).hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const source = verifierCertificateOf(await deps.policies.listByTenant(tenant));
  const { keyId, x5c } = await deps.verifierKeys.certificate(tenant, source, verifierHost);
  return { clientId: x509ClientIdOf(prefix, x5c, verifierHost), keyId, x5c };
}

/**
 * POST /v1/verifier/authorization-request: validates the DCQL query and the verifier key, opens a
 * `pending` session and answers the `openid4vp://` URL a wallet starts from. The verifier key and,
 * for direct_post.jwt, a fresh ephemeral P-256 decryption key are kept sealed until the session ends.
 */
export async function createAuthorizationRequest(
  deps: Pick<VerifierDependencies, "sessions" | "pendingSessions" | "dcApiSessions" | "sealer" | "now"> &
    Pick<VerifierDependencies, "policies" | "verifierKeys" | "verifierUrl">,
  tenant: string,
  input: AuthorizationRequestInput,
): Promise<CreatedAuthorizationRequest | CreatedDcApiRequest> {
  try {
    // The route's schema has applied the same rules (zDcqlQuery); other callers get them here.
    parseDcqlQuery(input.dcqlQuery);
  } catch (error) {
    if (error instanceof DcqlQueryError) throw invalidFields([error.fieldError]);
    throw error;
  }
  if (input.clientIdPrefix) assertNoCallerKey(input);
  const responseMode = input.responseMode ?? "direct_post";
  const dcApi = isDcApiMode(responseMode);
  // A DC API request with neither a caller key nor client_id_prefix is unsigned; every other request is signed.
  const unsigned =
    dcApi &&
    input.clientIdPrefix === undefined &&
    input.verifierPrivateKey === undefined &&
    input.verifierClientId === undefined;
  const signer = unsigned
    ? undefined
    : input.clientIdPrefix
      ? await tenantVerifierSigner(deps, tenant, input.clientIdPrefix)
      : callerKeySigner(input);
  const expectedOrigins = checkDcApiFields(input, responseMode, signer !== undefined);
  const clientId = signer?.clientId ?? UNSIGNED_CLIENT_ID;
  const id = randomUUID();
  const now = deps.now();
  const encryptionKey = isEncryptedMode(responseMode) ? createResponseEncryptionKey() : undefined;
  const context = sessionKeyContext(id);
  const session: Omit<VerificationSession, "expiresAt"> = {
    id,
    tenant,
    // From the process's CSPRNG pool, as the state and nonce are (one randomBytes call per 4 KiB).
    requestUriId: pooledRandomBytes(24).toString("base64url"),
    state: createRequestNonce(),
    nonce: createRequestNonce(),
    clientId,
    requestKid: signer?.kid,
    responseMode,
    dcqlQuery: input.dcqlQuery,
    clientMetadata: input.clientMetadata,
    redirectUri: input.redirectUri,
    encryptionKid: encryptionKey?.publicJwk.kid,
    encryptionPublicJwk: encryptionKey?.publicJwk,
    // A DC API request is signed once, now: a caller key is never stored for it.
    signingKeyEnvelope: signer?.seed && !dcApi ? deps.sealer.seal(signer.seed, context) : undefined,
    clientIdPrefix: input.clientIdPrefix,
    signingKeyId: signer?.keyId,
    requestX5c: signer?.x5c,
    responseCodeHash: undefined,
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
  // Its presentation (direct_post) uses the session as stored here (pending-sessions.ts).
  deps.pendingSessions.remember({ ...session, expiresAt });
  if (dcApi) {
    const dcApiRequest = await openDcApiSession(deps, { ...session, expiresAt }, signer, expectedOrigins);
    signer?.seed?.fill(0);
    return {
      session_id: id,
      ...(input.clientIdPrefix ? { client_id: clientId } : {}),
      dc_api_request: dcApiRequest,
      expires_at: expiresAt.toISOString(),
    };
  }
  signer?.seed?.fill(0);
  const pages = requestLinkPagesOf(deps.verifierUrl, session.requestUriId);
  return {
    session_id: id,
    // Only for a client_id_prefix session: the original modes answer exactly as before.
    ...(input.clientIdPrefix ? { client_id: clientId } : {}),
    request_uri: requestUriOf(deps.verifierUrl, session.requestUriId),
    authorization_request: authorizationRequestLinkOf(deps.verifierUrl, session),
    qr_code_url: pages.qrCodeUrl,
    page_url: pages.pageUrl,
    expires_at: expiresAt.toISOString(),
  };
}
