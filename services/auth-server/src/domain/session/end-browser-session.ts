import type { BrowserSessionRepository } from "../ports.js";
import { sha256Hex } from "../secrets.js";

export type EndSessionResult = { kind: "redirect"; location: string } | { kind: "signed_out" };

/**
 * `GET /end_session` (OpenID RP-Initiated Logout, without ID tokens): ends the browser's session at
 * the authorization server, then returns to `post_logout_redirect_uri` only when it is registered
 * (exact match; `state` is passed back), otherwise shows the signed-out page.
 */
export async function endBrowserSession(
  input: { browserSessionId: string | undefined; postLogoutRedirectUri: string | undefined; state: string | undefined },
  deps: { sessions: BrowserSessionRepository; postLogoutRedirectUris: readonly string[] },
): Promise<EndSessionResult> {
  if (input.browserSessionId) await deps.sessions.end(sha256Hex(input.browserSessionId));
  const target = input.postLogoutRedirectUri;
  if (target === undefined || !deps.postLogoutRedirectUris.includes(target)) return { kind: "signed_out" };
  const url = new URL(target);
  if (input.state !== undefined) url.searchParams.set("state", input.state);
  return { kind: "redirect", location: url.toString() };
}
