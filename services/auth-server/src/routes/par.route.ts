import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { handleParRequest, type ParEndpointDeps } from "../domain/par/handle-par-request.js";
import {
  clientAttestationHeadersOf,
  FORM_CONTENT_TYPES,
  formBody,
  preventCaching,
  requireFormBody,
} from "./oauth-form-endpoint.js";

const zParRequest = formBody({
  response_type: "Must be code",
  client_id: "The wallet's client identifier",
  redirect_uri: "Where the authorization response goes",
  code_challenge: "base64url(SHA-256(code_verifier))",
  code_challenge_method: "Must be S256",
  scope: "A credential configuration id",
  issuer_state: "UUID from the credential offer's authorization_code grant",
  authorization_details: "JSON array of RFC 9396 openid_credential items",
  state: "Returned with the authorization response (at most 4096 characters)",
});

const zParResponse = z.object({ request_uri: z.string(), expires_in: z.number().int() });

/** `POST /v1/par` (RFC 9126, this service's README): 201 `{request_uri, expires_in}` for a pushed authorization request. */
export function registerParRoute(app: App, deps: ParEndpointDeps): void {
  app.post(
    "/v1/par",
    {
      config: { errorShape: "oauth" },
      schema: {
        summary: "Pushed authorization request (RFC 9126; client attestation headers required)",
        consumes: FORM_CONTENT_TYPES,
        body: zParRequest,
        response: { 201: zParResponse },
      },
      onRequest: preventCaching,
      preValidation: requireFormBody("pushed authorization request"),
    },
    async (request, reply) => {
      const response = await handleParRequest(
        {
          parameters: request.body ?? {},
          dpopHeader: request.headers.dpop,
          clientAttestation: clientAttestationHeadersOf(request),
        },
        deps,
      );
      return reply.code(201).header("DPoP-Nonce", response.dpopNonce).send(response.body);
    },
  );
}
