import type { VerifierPolicy } from "./policy/verifier-policy.js";
import type {
  CheckResult,
  PresentationMetadata,
  VerificationMode,
  VerificationSession,
} from "./verification-session.js";

export interface VerificationOutcome {
  status: "completed" | "failed";
  checkResults: CheckResult[];
  presentationMetadata: PresentationMetadata | undefined;
  verifiedAt: Date;
}

/** How long a new session lives, before its tenant's verifier policies cap it. */
export interface SessionLifetime {
  /** The relying party's `expires_in`, if it gave one. */
  requestedSeconds: number | undefined;
  defaultSeconds: number;
}

/** Where sessions live (PostgreSQL in production; the store implements it). */
export interface VerificationSessionRepository {
  /**
   * Stores a new session; returns its `expiresAt`: `createdAt` plus the requested seconds (else the
   * default), at most the shortest session TTL among its tenant's verifier policies, a policy TTL
   * replacing the default when none was requested. The policies are read in the same statement.
   */
  insert(session: Omit<VerificationSession, "expiresAt">, lifetime: SessionLifetime): Promise<Date>;
  findById(id: string): Promise<VerificationSession | undefined>;
  findByRequestUriId(requestUriId: string): Promise<VerificationSession | undefined>;
  /**
   * The session a presentation answers (by `state` or by the response encryption key's `kid`)
   * together with its tenant's verifier policies (ordered by name): one read instead of two.
   */
  findForPresentation(
    by: { state: string } | { encryptionKid: string },
  ): Promise<{ session: VerificationSession; policies: VerifierPolicy[] } | undefined>;
  /**
   * pending -> in_progress, atomically: of concurrent submissions exactly one wins. False when the
   * session is no longer pending or has expired at `now`. `responseCodeHash` (same-device sessions)
   * is stored with the transition.
   */
  startVerification(id: string, mode: VerificationMode, now: Date, responseCodeHash?: string): Promise<boolean>;
  /**
   * Clears the session's response_code hash if it is still `hash` (single use: of concurrent
   * callers exactly one gets true).
   */
  consumeResponseCode(id: string, hash: string): Promise<boolean>;
  /** in_progress -> completed | failed, recording the result and dropping the session's keys. */
  recordOutcome(id: string, outcome: VerificationOutcome): Promise<void>;
  /**
   * in_progress since before `submittedBefore` -> failed with `checkResult` (the verification was
   * interrupted, e.g. its process died); returns how many.
   */
  failInterrupted(submittedBefore: Date, checkResult: CheckResult, now: Date): Promise<number>;
  /** Drops the keys of sessions that expired before `now` without a presentation; returns how many. */
  dropKeysOfExpiredSessions(now: Date): Promise<number>;
}
