import type { VerificationSessionRepository } from "./ports.js";

/** How often the verifier looks for verifications its (or another replica's) death interrupted. */
export const INTERRUPTED_SWEEP_INTERVAL_MS = 5_000;

/**
 * A presentation is accepted (pending -> in_progress) before it is verified; if the verifier dies in
 * between, nothing would ever finish it. Sessions in_progress for longer than any verification takes
 * are therefore closed as `failed` with reason `interrupted`, so the relying party gets an answer.
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
