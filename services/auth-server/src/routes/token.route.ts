import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { handleTokenRequest, type TokenEndpointDeps } from "../domain/token/handle-token-request.js";
import { clientAttestationHeadersOf, preventCaching, requireFormBody, zFormBody } from "./oauth-form-endpoint.js";

const zTokenResponse = z.object({
  access_token: z.string(),
  token_type: z.enum(["DPoP", "Bearer"]),
  expires_in: z.number().int(),
});

/** `POST /v1/token` (this service's README): a pre-authorized code or an authorization code for an access token. */
export function registerTokenRoute(app: App, deps: TokenEndpointDeps): void {
  app.post(
    "/v1/token",
    {
      config: { errorShape: "oauth" },
      schema: { body: zFormBody, response: { 200: zTokenResponse } },
      onRequest: preventCaching,
      preValidation: requireFormBody("token request"),
    },
    async (request, reply) => {
      const response = await handleTokenRequest(
        {
          parameters: request.body ?? {},
          dpopHeader: request.headers.dpop,
          clientAttestation: clientAttestationHeadersOf(request),
        },
        deps,
      );
      return reply.header("DPoP-Nonce", response.dpopNonce).send(response.body);
    },
  );
}
