import type { VerificationSessionRepository } from "./ports.js";

/** How often the verifier looks for verifications its (or another replica's) death interrupted. */
export const INTERRUPTED_SWEEP_INTERVAL_MS = 5_000;

/**
 * Earlier versions accepted a presentation (pending -> in_progress) before verifying it; if such a
 * verifier died in between, nothing would ever finish the session. Sessions in_progress for longer
 * than any verification takes are therefore closed as `failed` with reason `interrupted`, so the
 * relying party gets an answer. This version never writes in_progress (verify first, then one
 * write pending -> completed | failed): the sweep is for rows left during a rolling upgrade.
 */
export function failInterruptedVerifications(deps: {
  sessions: VerificationSessionRepository;
  now: () => Date;
  timeoutSeconds: number;
}): Promise<number> {
  const now = deps.now();
  return deps.sessions.failInterrupted(
    new Date(now.getTime() - deps.timeoutSeconds * 1000),
    {
      check: "verification",
      status: "failed",
      reason_code: "interrupted",
      message: "Verification was interrupted before it finished; ask the wallet to present again",
    },
    now,
  );
}
