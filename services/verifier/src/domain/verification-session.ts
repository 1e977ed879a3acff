import type { ResponseEncryptionPublicJwk } from "@attesto/protocol";
import type { ClientIdPrefix } from "./x509/client-id-prefix.js";

/** `response_mode` of the authorization request (`dc_api*`: OID4VP 1.0 Appendix A, see dc-api/). */
export const RESPONSE_MODES = ["direct_post", "direct_post.jwt", "dc_api", "dc_api.jwt"] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** The response modes whose answer comes back through the browser's Digital Credentials API. */
export const isDcApiMode = (mode: ResponseMode): mode is "dc_api" | "dc_api.jwt" =>
  mode === "dc_api" || mode === "dc_api.jwt";

/** The response modes whose answer is a JWE to the session's ephemeral key. */
export const isEncryptedMode = (mode: ResponseMode): boolean => mode === "direct_post.jwt" || mode === "dc_api.jwt";

/** `verification_mode` of a submission: stop at the first failed check, or run every check. */
export const VERIFICATION_MODES = ["fail_fast", "run_all"] as const;
export type VerificationMode = (typeof VERIFICATION_MODES)[number];
export const DEFAULT_VERIFICATION_MODE: VerificationMode = "fail_fast";

/**
 * Session status (this service's README). Stored: pending -> completed | failed, in one write once a
 * presentation has been verified. `in_progress` is what earlier versions stored while verifying (a
 * row an older replica left during a rolling upgrade; the interrupted sweep closes it). `expired` is
 * never stored: it is what a `pending` session is once `expires_at` has passed.
 */
export type StoredSessionStatus = "pending" | "in_progress" | "completed" | "failed";
export type SessionStatus = StoredSessionStatus | "expired";

export const DEFAULT_SESSION_TTL_SECONDS = 300;
export const MIN_SESSION_TTL_SECONDS = 60;
export const MAX_SESSION_TTL_SECONDS = 3600;

export type CheckStatus = "success" | "failed" | "skipped";

/** One entry of `check_results` (wire shape, stored as is). */
export interface CheckResult {
  check: string;
  status: CheckStatus;
  reason_code: string;
  message: string;
}

export interface CredentialMetadata {
  issuer: string;
  credential_type: string[];
  issued_at: string | null;
  expires_at: string | null;
}

/** `presentation_metadata` of a completed session (wire shape). */
export interface PresentationMetadata {
  claims: Record<string, unknown>;
  credential_metadata: CredentialMetadata[];
}

export interface ClientMetadataInput {
  client_name?: string;
  logo_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
}

/** A verification session; field by field, who sets it and when. */
export interface VerificationSession {
  /** Set at creation (UUID); the RP polls the result with it. */
  id: string;
  /** The API key's tenant that created it; only it may read the result. */
  tenant: string;
  /** Random id in the request_uri; the request object is served under it while the session is pending. */
  requestUriId: string;
  /** Random 32 bytes; the wallet echoes it; it finds the session at submission. */
  state: string;
  /** Random 32 bytes; the KB-JWT must carry it. */
  nonce: string;
  /** The client_id rule's output (see README); also the KB-JWT `aud`. */
  clientId: string;
  /** DID URL in the request object's `kid` header, when the verifier is a DID. */
  requestKid: string | undefined;
  responseMode: ResponseMode;
  /** The DCQL query as the RP sent it (validated), served in the request object. */
  dcqlQuery: unknown;
  clientMetadata: ClientMetadataInput | undefined;
  redirectUri: string | undefined;
  /** direct_post.jwt only: the ephemeral key's kid (locates the session of a JWE) and public JWK. */
  encryptionKid: string | undefined;
  encryptionPublicJwk: ResponseEncryptionPublicJwk | undefined;
  /** Sealed Ed25519 request-signing key (caller-supplied key only); cleared when the session ends. */
  signingKeyEnvelope: string | undefined;
  /** Set at creation when the RP asked for `client_id_prefix`: the request object is signed by the tenant's verifier key. */
  clientIdPrefix: ClientIdPrefix | undefined;
  /** The tenant's verifier key in custody (x509 prefixes): signs the request object; never leaves custody. */
  signingKeyId: string | undefined;
  /** The verifier certificate chain of the session (x509 prefixes), pinned at creation: `client_id` names its leaf. */
  requestX5c: string[] | undefined;
  /** SHA-256 (base64url) of the same-device response_code, set when a presentation is accepted for a session with a redirect_uri; cleared once used. */
  responseCodeHash: string | undefined;
  /** Sealed ephemeral decryption key (direct_post.jwt); cleared when the session ends. */
  encryptionKeyEnvelope: string | undefined;
  status: StoredSessionStatus;
  /** Set when a presentation is accepted. */
  verificationMode: VerificationMode | undefined;
  /** Set when verification ends. */
  checkResults: CheckResult[] | undefined;
  /** Set when verification succeeds. */
  presentationMetadata: PresentationMetadata | undefined;
  createdAt: Date;
  expiresAt: Date;
  submittedAt: Date | undefined;
  verifiedAt: Date | undefined;
}

/** The status a client sees at `now`: a pending session past its expiry is `expired`. */
export function statusAt(session: Pick<VerificationSession, "status" | "expiresAt">, now: Date): SessionStatus {
  if (session.status === "pending" && session.expiresAt.getTime() <= now.getTime()) return "expired";
  return session.status;
}

/** Envelope context of a session's keys: a sealed key opens only for its own session. */
export const sessionKeyContext = (sessionId: string) => `session:${sessionId}`;
