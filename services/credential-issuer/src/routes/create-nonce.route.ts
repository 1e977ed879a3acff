import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { IssuerDependencies } from "../domain/ports.js";

const zNonceResponse = z.object({ c_nonce: z.string() });

/** POST /v1/nonce (OID4VCI 1.0 §7): a fresh stateless c_nonce; any body (or none) is accepted. */
export function registerCreateNonceRoute(app: App, deps: IssuerDependencies): void {
  app.post("/v1/nonce", { schema: { response: { 200: zNonceResponse } } }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    return { c_nonce: deps.cNonces.create().value };
  });
}
