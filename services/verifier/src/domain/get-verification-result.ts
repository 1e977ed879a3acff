import { badRequest, notFound } from "@attesto/runtime/errors";
import type { VerifierDependencies } from "./ports.js";
import { hashResponseCode, responseCodeMatches } from "./response-code.js";
import {
  type CheckResult,
  DEFAULT_VERIFICATION_MODE,
  type PresentationMetadata,
  type SessionStatus,
  statusAt,
  type VerificationMode,
} from "./verification-session.js";

/** The verification session as the RP polls it (this service's README). */
export interface VerificationResult {
  session_id: string;
  status: SessionStatus;
  created_at: string;
  expires_at: string;
  verified_at?: string;
  verification_mode: VerificationMode;
  check_results: CheckResult[];
  presentation_metadata?: PresentationMetadata;
  error?: { code: "session_expired"; message: string };
}

/**
 * GET /v1/verifier/result/:sessionId for the tenant that created the session (any other tenant,
 * or an unknown id, is 404). `verification_mode` is the submission's, `fail_fast` until one
 * arrives; `verified_at` once verification ended; `presentation_metadata` only when completed;
 * `error` only when expired.
 *
 * With `responseCode` (same-device flow) the result is released only to the holder of the code
 * the wallet was redirected with: it must be this session's (constant-time over SHA-256 hashes)
 * and unused; it is consumed by this read. Any mismatch is one 400 that says nothing about why.
 */
export async function getVerificationResult(
  deps: Pick<VerifierDependencies, "sessions" | "outcomes" | "now">,
  tenant: string,
  sessionId: string,
  responseCode?: string,
): Promise<VerificationResult> {
  // The outcome this process recorded, as its row now is (recorded-outcomes.ts); a response_code
  // is consumed in the database, so that read always goes there.
  const remembered = responseCode === undefined ? deps.outcomes.take(sessionId, tenant) : undefined;
  const session = remembered ?? (await deps.sessions.findById(sessionId));
  if (!session || session.tenant !== tenant) throw notFound("Verification session not found");
  if (responseCode !== undefined) {
    const accepted =
      responseCodeMatches(responseCode, session.responseCodeHash) &&
      (await deps.sessions.consumeResponseCode(session.id, hashResponseCode(responseCode)));
    if (!accepted) throw badRequest("response_code is not valid for this session (wrong, already used, or not issued)");
  }
  const status = statusAt(session, deps.now());
  const result: VerificationResult = {
    session_id: session.id,
    status,
    created_at: session.createdAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    verification_mode: session.verificationMode ?? DEFAULT_VERIFICATION_MODE,
    check_results: session.checkResults ?? [],
  };
  if (session.verifiedAt) result.verified_at = session.verifiedAt.toISOString();
  if (status === "completed" && session.presentationMetadata)
    result.presentation_metadata = session.presentationMetadata;
  if (status === "expired") {
    result.error = {
      code: "session_expired",
      message: "The verification session expired before a presentation arrived",
    };
  }
  return result;
}
