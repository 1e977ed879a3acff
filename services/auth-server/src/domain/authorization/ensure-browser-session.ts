import type { BrowserSessionRepository } from "../ports.js";
import { randomSecret, sha256Hex } from "../secrets.js";
import { BROWSER_SESSION_LIFETIME_SECONDS } from "../session/browser-session.js";

export interface BrowserSession {
  /** The cookie value (random); only its SHA-256 is stored. */
  id: string;
  idHash: string;
  /** True when it was just created: the cookie must be set. */
  created: boolean;
  expiresAt: Date | undefined;
}

/** The browser's active session (from its cookie), or a new one. */
export async function ensureBrowserSession(
  cookieValue: string | undefined,
  deps: { sessions: BrowserSessionRepository; now: () => Date },
): Promise<BrowserSession> {
  const now = deps.now();
  if (cookieValue) {
    const idHash = sha256Hex(cookieValue);
    if (await deps.sessions.isActive(idHash, now)) {
      return { id: cookieValue, idHash, created: false, expiresAt: undefined };
    }
  }
  const id = randomSecret();
  const expiresAt = new Date(now.getTime() + BROWSER_SESSION_LIFETIME_SECONDS * 1000);
  await deps.sessions.create({ idHash: sha256Hex(id), createdAt: now, expiresAt });
  return { id, idHash: sha256Hex(id), created: true, expiresAt };
}
