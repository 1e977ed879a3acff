import { REQUEST_OBJECT_CONTENT_TYPE } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { getRequestObject } from "../domain/get-request-object.js";
import type { VerifierDependencies } from "../domain/ports.js";

const zParams = z.object({ requestUriId: z.string().min(1).max(128, "must be at most 128 characters") });

/** What a wallet may post with request_uri_method=post (OID4VP 1.0 §5.10); unknown members are ignored. */
const zWalletBody = z
  .object({ wallet_nonce: z.string().max(1024, "must be at most 1024 characters").optional() })
  .loose()
  .nullish();

/**
 * GET /v1/verifier/request/:requestUriId (public): the signed request object, as
 * `application/oauth-authz-req+jwt`. POST does the same for wallets using request_uri_method=post.
 */
export function registerGetRequestObjectRoute(app: App, deps: VerifierDependencies): void {
  app.get(
    "/v1/verifier/request/:requestUriId",
    { schema: { params: zParams }, config: { answers: [404, 410], produces: REQUEST_OBJECT_CONTENT_TYPE } },
    async (request, reply) => {
      const jwt = await getRequestObject(deps, request.params.requestUriId);
      return reply.type(REQUEST_OBJECT_CONTENT_TYPE).header("cache-control", "no-store").send(jwt);
    },
  );
  app.post(
    "/v1/verifier/request/:requestUriId",
    {
      schema: { params: zParams, body: zWalletBody, consumes: ["application/x-www-form-urlencoded"] },
      config: { answers: [404, 410], produces: REQUEST_OBJECT_CONTENT_TYPE },
    },
    async (request, reply) => {
      const walletNonce = request.body?.wallet_nonce;
      const jwt = await getRequestObject(deps, request.params.requestUriId, walletNonce ? { walletNonce } : {});
      return reply.type(REQUEST_OBJECT_CONTENT_TYPE).header("cache-control", "no-store").send(jwt);
    },
  );
}
