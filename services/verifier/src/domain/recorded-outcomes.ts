import { createBoundedCache } from "@attesto/protocol/cache";
import type { VerificationSession } from "./verification-session.js";

/** Outcomes remembered at once (the least recently used goes first). */
const REMEMBERED_OUTCOMES = 1_000;
/** A relying party reads its result moments after the wallet's presentation (it polls, or a webhook tells it). */
const REMEMBERED_FOR_MS = 5 * 60 * 1000;

/**
 * The sessions whose verification this process recorded, as the recording write left their row,
 * until the tenant's first result read here: that read answers from them instead of reading the
 * session again (one statement less per verification). A miss (evicted, restarted, recorded by
 * another replica, read once already) reads the session as before.
 *
 * Guarantee kept: the result is the one the read would give, byte for byte. A recorded session is
 * terminal: `completed` and `failed` are the last states (the recording write is the only one that
 * leaves `pending`, conditional on it), sessions are never deleted, and the one later write to such
 * a row, a same-device response_code's consumption, changes nothing the result shows (the result
 * with a response_code always reads and consumes in the database). Tenant isolation stays with the
 * caller: an entry is handed out only to its own tenant, and is kept for it otherwise. The outcome
 * holds the disclosed claims: it is handed out once and forgotten (at most `REMEMBERED_FOR_MS`,
 * never written anywhere). A change that deletes sessions or rewrites a terminal one must forget
 * them here too.
 */
export interface RecordedOutcomes {
  /** `session` as this process's recording write left it (`recordVerification` returned true). */
  remember(session: VerificationSession): void;
  /** The remembered session `id` of `tenant`, forgotten as it is handed out; undefined otherwise. */
  take(id: string, tenant: string): VerificationSession | undefined;
}

export function createRecordedOutcomes(): RecordedOutcomes {
  const sessions = createBoundedCache<VerificationSession>({ max: REMEMBERED_OUTCOMES, ttlMs: REMEMBERED_FOR_MS });
  return {
    remember(session) {
      sessions.set(session.id, session);
    },
    take(id, tenant) {
      const session = sessions.peek(id);
      if (session?.tenant !== tenant) return undefined;
      sessions.delete(id);
      return session;
    },
  };
}
