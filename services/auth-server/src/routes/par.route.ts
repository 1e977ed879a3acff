import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { handleParRequest, type ParEndpointDeps } from "../domain/par/handle-par-request.js";
import {
  clientAttestationHeadersOf,
  FORM_CONTENT_TYPES,
  preventCaching,
  requireFormBody,
} from "./oauth-form-endpoint.js";
import { parParametersOf, zParRequest } from "./par-request.schema.js";

const zParResponse = z
  .object({
    request_uri: z.string().describe("urn:ietf:params:oauth:request-uri:<handle>, single use"),
    expires_in: z.number().int().describe("Seconds the request_uri lives"),
  })
  .meta({
    examples: [{ request_uri: "urn:ietf:params:oauth:request-uri:6esc_11ACC5bwc014ltc14eY22c", expires_in: 60 }],
  });

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
          parameters: parParametersOf(request.body),
          dpopHeader: request.headers.dpop,
          clientAttestation: clientAttestationHeadersOf(request),
        },
        deps,
      );
      return reply.code(201).header("DPoP-Nonce", response.dpopNonce).send(response.body);
    },
  );
}
