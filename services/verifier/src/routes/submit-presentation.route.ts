import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { VerifierDependencies } from "../domain/ports.js";
import { submitPresentation } from "../domain/submit-presentation.js";

/**
 * The wallet's form (application/x-www-form-urlencoded; JSON is accepted too). Members are checked
 * by the use case so that every refusal is an OAuth `invalid_request`; unknown members (e.g.
 * `presentation_submission`, `id_token`) are ignored.
 */
const zForm = z
  .object({
    state: z.unknown().optional(),
    vp_token: z.unknown().optional(),
    response: z.unknown().optional(),
    verification_mode: z.unknown().optional(),
    presentation_submission: z.unknown().optional(),
  })
  .loose()
  .nullish();

const zAccepted = z.object({
  redirect_uri: z
    .string()
    .optional()
    .describe(
      "When the session has a redirect_uri: it with session_id and, for client_id_prefix sessions, a fresh single-use response_code",
    ),
});

/** POST /v1/verifier/presentation (public, OAuth error shape): the wallet's authorization response. */
export function registerSubmitPresentationRoute(app: App, deps: VerifierDependencies): void {
  app.post(
    "/v1/verifier/presentation",
    {
      config: { errorShape: "oauth", answers: [404, 410] },
      schema: { body: zForm, consumes: ["application/x-www-form-urlencoded"], response: { 200: zAccepted } },
    },
    async (request, reply) => {
      const accepted = await submitPresentation(deps, request.body ?? {}, (check, error) =>
        request.log.error({ err: error, check }, "verification check failed unexpectedly"),
      );
      return reply.header("cache-control", "no-store").send(accepted);
    },
  );
}
