import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { submitDcApiResponse } from "../domain/dc-api/submit-dc-api-response.js";
import type { VerifierDependencies } from "../domain/ports.js";

const zParams = z.object({ sessionId: z.guid({ error: "must be a UUID" }) });

/** The page's post: members are checked by the use case (each refusal an OAuth `invalid_request`). */
const zBody = z
  .object({
    protocol: z.unknown().optional().describe("openid4vp-v1-signed or openid4vp-v1-unsigned (informative)"),
    data: z
      .unknown()
      .optional()
      .describe("the DigitalCredential's data: {vp_token} (dc_api) or {response} (dc_api.jwt)"),
    verification_mode: z.unknown().optional(),
  })
  .loose()
  .nullish();

const zAccepted = z.object({});

/**
 * POST /v1/verifier/dc-api/:sessionId (public, OAuth error shape): the Digital Credentials API
 * response the calling page got back, bound to the page's `Origin` (this service's README).
 */
export function registerSubmitDcApiResponseRoute(app: App, deps: VerifierDependencies): void {
  app.post(
    "/v1/verifier/dc-api/:sessionId",
    { config: { errorShape: "oauth" }, schema: { params: zParams, body: zBody, response: { 200: zAccepted } } },
    async (request, reply) => {
      // The answer goes back to the page, never to a redirect: `{}` (the RP polls the result).
      await submitDcApiResponse(
        deps,
        request.params.sessionId.toLowerCase(),
        request.headers.origin,
        request.body ?? {},
        (check, error) => request.log.error({ err: error, check }, "verification check failed unexpectedly"),
      );
      return reply.header("cache-control", "no-store").send({});
    },
  );
}
