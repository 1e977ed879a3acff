import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { AuthorizationStepDeps } from "../domain/authorization/authorization-step-deps.js";
import { startAuthorization } from "../domain/authorization/start-authorization.js";
import { BROWSER_SESSION_LIFETIME_SECONDS } from "../domain/session/browser-session.js";
import { consentPage } from "../pages/consent-page.js";
import {
  browserErrorHandler,
  cookieOf,
  SESSION_COOKIE,
  type SessionCookieOptions,
  sendPage,
  setSessionCookie,
  singleValue,
} from "./browser-pages.js";

/** Query parameters; a repeated one arrives as an array (and is then treated as missing). */
const zQueryValue = z.union([z.string(), z.array(z.string())]);
const zQuery = z
  .object({
    client_id: zQueryValue.optional().describe("The client of the pushed request"),
    request_uri: zQueryValue.optional().describe("The request_uri the PAR endpoint returned"),
  })
  .catchall(zQueryValue);

/** `GET /v1/authorize?client_id&request_uri` (RFC 9126 §4): the consent page of a pushed request. */
export function registerAuthorizeRoute(app: App, deps: AuthorizationStepDeps, cookie: SessionCookieOptions): void {
  app.get(
    "/v1/authorize",
    // No HEAD twin: a HEAD (link previews) would consume the single-use request_uri or end the session.
    {
      schema: { querystring: zQuery },
      config: { produces: "text/html", errorPages: true, answers: [303, 403, 404, 410, 503] },
      errorHandler: browserErrorHandler,
      exposeHeadRoute: false,
    },
    async (request, reply) => {
      const result = await startAuthorization(
        {
          clientId: singleValue(request.query.client_id),
          requestUri: singleValue(request.query.request_uri),
          browserSessionId: cookieOf(request, SESSION_COOKIE),
        },
        deps,
      );
      if (result.session.created) {
        setSessionCookie(reply, result.session.id, BROWSER_SESSION_LIFETIME_SECONDS, cookie);
      }
      if (result.kind === "redirect") {
        return reply.code(303).header("Cache-Control", "no-store").header("Location", result.location).send();
      }
      return sendPage(reply, consentPage(result.consent));
    },
  );
}
