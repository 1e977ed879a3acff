import { type App, documentedOnly } from "@attesto/runtime/http";
import { z } from "zod";
import { handleTokenRequest, type TokenEndpointDeps } from "../domain/token/handle-token-request.js";
import {
  clientAttestationHeadersOf,
  FORM_CONTENT_TYPES,
  preventCaching,
  requireFormBody,
} from "./oauth-form-endpoint.js";
import { grantRequestOf, zTokenRequest } from "./token-request.schema.js";

const zTokenResponse = z
  .object({
    access_token: z.string().describe("A JWT for the credential endpoint"),
    token_type: z.enum(["DPoP", "Bearer"]).describe("DPoP when the request carried a DPoP proof"),
    expires_in: z.number().int().describe("Seconds the token lives"),
  })
  .meta({
    examples: [
      {
        access_token: "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZSJ9.c2lnbmF0dXJl",
        token_type: "DPoP",
        expires_in: 300,
      },
    ],
  });

/** `POST /v1/token` (this service's README): a pre-authorized code or an authorization code for an access token. */
export function registerTokenRoute(app: App, deps: TokenEndpointDeps): void {
  app.post(
    "/v1/token",
    {
      config: { errorShape: "oauth" },
      // The schema is applied by the handler (grantRequestOf): an unknown grant type is unsupported_grant_type.
      ...documentedOnly,
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
          grant: grantRequestOf(request.body),
          dpopHeader: request.headers.dpop,
          clientAttestation: clientAttestationHeadersOf(request),
        },
        deps,
      );
      return reply.header("DPoP-Nonce", response.dpopNonce).send(response.body);
    },
  );
}
