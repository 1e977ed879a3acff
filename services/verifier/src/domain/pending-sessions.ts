import { createBoundedCache } from "@attesto/protocol/cache";
import type { VerificationSession } from "./verification-session.js";

/** Sessions remembered at once (the least recently used goes first). */
const REMEMBERED_SESSIONS = 1_000;
/** A wallet answers within minutes of the request (sessions live 5 minutes by default); a later answer reads the session. */
const REMEMBERED_FOR_MS = 10 * 60 * 1000;

/**
 * The direct_post sessions this process created, as it inserted them, until a presentation for
 * one is decided here: the presentation (found by `state`) uses the session from here instead of
 * reading it again (one statement less per verification); the tenant's policies then come from
 * their coherent cache (`VerifierPolicyRepository.current`). A miss (evicted, restarted, created by
 * another replica, decided already) reads the session as before.
 *
 * Guarantee kept: each presentation gets the answer the read would give it. What the presentation
 * uses of a session (tenant, state, nonce, client id, DCQL query, redirect, expiry) is written once
 * at creation and never changes; its status can only leave `pending` by the recording write, which
 * is conditional on it still being pending and unexpired. A remembered session another replica
 * already decided is verified here and then refused by that write with the refusal the read would
 * have given ("already submitted"); one decided here is forgotten by then; an expired one is
 * refused before verification as before (its `expiresAt` is the insert's). Single use and
 * exactly-one-recorded stay with the conditional write. A change that writes what a presentation
 * uses after creation, or deletes sessions, must forget them here too.
 */
export interface PendingSessions {
  /** `session` as this process's insert stored it (only direct_post sessions are kept). */
  remember(session: VerificationSession): void;
  /** The remembered session of `state`, if any. */
  find(state: string): VerificationSession | undefined;
  /** Forgets the session of `state` (a presentation for it was decided). */
  forget(state: string): void;
}

export function createPendingSessions(): PendingSessions {
  const sessions = createBoundedCache<VerificationSession>({ max: REMEMBERED_SESSIONS, ttlMs: REMEMBERED_FOR_MS });
  return {
    remember(session) {
      if (session.responseMode !== "direct_post" || session.status !== "pending") return;
      sessions.set(session.state, session);
    },
    find: (state) => sessions.peek(state),
    forget(state) {
      sessions.delete(state);
    },
  };
}
