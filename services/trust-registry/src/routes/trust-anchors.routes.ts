import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { publishTrustAnchors } from "../domain/publish-trust-anchors.js";

/** Trust anchors change only when the platform CA is replaced: verifiers may keep them an hour. */
const CACHE_CONTROL = "public, max-age=3600";

/**
 * GET /v1/x509/trust-anchors (JWK Set, each key with `x5c` = [root]) and
 * GET /v1/x509/trust-anchors.pem (PEM bundle): the platform's X.509 trust anchors, public.
 */
const zJwks = z.object({ keys: z.array(z.object({ x5c: z.array(z.string()) }).loose()) }).loose();

/** Documentation only: the handlers send text, which Fastify does not serialise. */
const jwksSchema = {
  summary: "The platform's X.509 trust anchors as a JWK Set (each key with x5c = [root])",
  response: { 200: { description: "JWK Set", content: { "application/jwk-set+json": { schema: zJwks } } } },
};
const pemSchema = {
  summary: "The platform's X.509 trust anchors as a PEM bundle",
  response: {
    200: { description: "PEM certificates", content: { "application/pem-certificate-chain": { schema: z.string() } } },
  },
};

export function registerTrustAnchorRoutes(app: App, domain: TrustRegistryDependencies): void {
  app.get("/v1/x509/trust-anchors", { schema: jwksSchema }, async (_request, reply) => {
    const { jwks } = await publishTrustAnchors(domain);
    // Sent as text (jwks is typed by its own module): the schema above documents its shape.
    const text = JSON.stringify(jwks) as unknown as z.infer<typeof zJwks>;
    return reply.header("cache-control", CACHE_CONTROL).type("application/jwk-set+json").send(text);
  });
  app.get("/v1/x509/trust-anchors.pem", { schema: pemSchema }, async (_request, reply) => {
    const { pem } = await publishTrustAnchors(domain);
    return reply.header("cache-control", CACHE_CONTROL).type("application/pem-certificate-chain").send(pem);
  });
}
