import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { handleTokenRequest, type TokenEndpointDeps } from "../domain/token/handle-token-request.js";
import {
  clientAttestationHeadersOf,
  FORM_CONTENT_TYPES,
  formBody,
  preventCaching,
  requireFormBody,
} from "./oauth-form-endpoint.js";

const zTokenRequest = formBody({
  grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code or authorization_code",
  "pre-authorized_code": "Pre-authorized code grant: the code from the credential offer",
  tx_code: "Pre-authorized code grant: the transaction code, when the offer asks for one",
  code: "Authorization code grant: the code from the authorization response",
  code_verifier: "Authorization code grant: the PKCE verifier",
  redirect_uri: "Authorization code grant: the redirect_uri of the pushed request",
  client_id: "Authorization code grant: the client of the pushed request",
});

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
      schema: {
        summary: "Access token for a pre-authorized code or an authorization code (RFC 6749, OpenID4VCI)",
        consumes: FORM_CONTENT_TYPES,
        body: zTokenRequest,
        response: { 200: zTokenResponse },
      },
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
