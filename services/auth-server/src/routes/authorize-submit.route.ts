import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { AuthorizationStepDeps } from "../domain/authorization/authorization-step-deps.js";
import { submitAuthorization } from "../domain/authorization/submit-authorization.js";
import { browserErrorHandler, cookieOf, SESSION_COOKIE, singleValue } from "./browser-pages.js";
import { FORM_CONTENT_TYPES } from "./oauth-form-endpoint.js";

const zForm = z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullish();

/**
 * `POST /v1/authorize/submit`: the consent form (request_id, csrf_token, decision). Answers 303 to
 * the client's redirect_uri with `code` or `error=access_denied`, plus `state` and `iss`.
 */
export function registerAuthorizeSubmitRoute(app: App, deps: AuthorizationStepDeps): void {
  app.post(
    "/v1/authorize/submit",
    {
      schema: { body: zForm, consumes: FORM_CONTENT_TYPES },
      config: { errorPages: true, answers: [303, 403, 404, 410, 503] },
      errorHandler: browserErrorHandler,
    },
    async (request, reply) => {
      const form = request.body ?? {};
      const { location } = await submitAuthorization(
        {
          requestId: singleValue(form.request_id),
          csrfToken: singleValue(form.csrf_token),
          decision: singleValue(form.decision),
          browserSessionId: cookieOf(request, SESSION_COOKIE),
        },
        deps,
      );
      return reply.code(303).header("Cache-Control", "no-store").header("Location", location).send();
    },
  );
}
