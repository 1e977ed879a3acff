/** A browser session at the authorization server lasts at most this long. */
export const BROWSER_SESSION_LIFETIME_SECONDS = 3600;

/**
 * Browser sessions: the cookie holds a random id, the database its SHA-256. A session ties a
 * consent page (and its CSRF token) to the browser it was shown to; GET /end_session deletes it.
 */
export interface BrowserSessionRepository {
  create(session: { idHash: string; createdAt: Date; expiresAt: Date }): Promise<void>;
  isActive(idHash: string, now: Date): Promise<boolean>;
  /** Deletes the session; false when there was none. */
  end(idHash: string): Promise<boolean>;
}
