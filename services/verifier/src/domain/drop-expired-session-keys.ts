import type { VerifierDependencies } from "./ports.js";

/** How often the background sweep drops the sealed keys of sessions that expired unanswered. */
export const KEY_SWEEP_INTERVAL_MS = 60_000;

/**
 * A session's keys live no longer than the session: verification drops them when it ends, and
 * this sweep drops those of sessions that expired without a presentation.
 */
export function dropExpiredSessionKeys(deps: Pick<VerifierDependencies, "sessions" | "now">): Promise<number> {
  return deps.sessions.dropKeysOfExpiredSessions(deps.now());
}
