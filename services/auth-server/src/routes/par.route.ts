import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { handleParRequest, type ParEndpointDeps } from "../domain/par/handle-par-request.js";
import { clientAttestationHeadersOf, preventCaching, requireFormBody, zFormBody } from "./oauth-form-endpoint.js";

const zParResponse = z.object({ request_uri: z.string(), expires_in: z.number().int() });

/** `POST /v1/par` (RFC 9126, this service's README): 201 `{request_uri, expires_in}` for a pushed authorization request. */
export function registerParRoute(app: App, deps: ParEndpointDeps): void {
  app.post(
    "/v1/par",
    {
      config: { errorShape: "oauth" },
      schema: { body: zFormBody, response: { 201: zParResponse } },
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
