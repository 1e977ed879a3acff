import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { BrowserSessionRepository } from "../domain/ports.js";
import { endBrowserSession } from "../domain/session/end-browser-session.js";
import { signedOutPage } from "../pages/message-pages.js";
import {
  browserErrorHandler,
  clearSessionCookie,
  cookieOf,
  SESSION_COOKIE,
  type SessionCookieOptions,
  sendPage,
  singleValue,
} from "./browser-pages.js";

const zQueryValue = z.union([z.string(), z.array(z.string())]);
const zQuery = z
  .object({
    post_logout_redirect_uri: zQueryValue.optional().describe("A registered POST_LOGOUT_REDIRECT_URIS entry"),
    state: zQueryValue.optional().describe("Returned to post_logout_redirect_uri"),
  })
  .catchall(zQueryValue);

/**
 * `GET /end_session`: ends the browser session (server-side row and cookie), then redirects to a
 * registered `post_logout_redirect_uri` (POST_LOGOUT_REDIRECT_URIS) or shows the signed-out page.
 */
export function registerEndSessionRoute(
  app: App,
  deps: { sessions: BrowserSessionRepository; postLogoutRedirectUris: readonly string[] },
  cookie: SessionCookieOptions,
): void {
  app.get(
    "/end_session",
    // No HEAD twin: a HEAD (link previews) would consume the single-use request_uri or end the session.
    {
      schema: { querystring: zQuery },
      config: { produces: "text/html", errorPages: true, answers: [303] },
      errorHandler: browserErrorHandler,
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const result = await endBrowserSession(
        {
          browserSessionId: cookieOf(request, SESSION_COOKIE),
          postLogoutRedirectUri: singleValue(request.query.post_logout_redirect_uri),
          state: singleValue(request.query.state),
        },
        deps,
      );
      clearSessionCookie(reply, cookie);
      if (result.kind === "redirect") {
        return reply.code(303).header("Cache-Control", "no-store").header("Location", result.location).send();
      }
      return sendPage(reply, signedOutPage());
    },
  );
}
