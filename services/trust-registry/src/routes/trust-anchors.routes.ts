import type { App } from "@attesto/runtime/http";
import type { TrustRegistryDomain } from "../domain/dependencies.js";
import { publishTrustAnchors } from "../domain/publish-trust-anchors.js";

/** Trust anchors change only when the platform CA is replaced: verifiers may keep them an hour. */
const CACHE_CONTROL = "public, max-age=3600";

/**
 * GET /v1/x509/trust-anchors (JWK Set, each key with `x5c` = [root]) and
 * GET /v1/x509/trust-anchors.pem (PEM bundle): the platform's X.509 trust anchors, public.
 */
export function registerTrustAnchorRoutes(app: App, domain: TrustRegistryDomain): void {
  app.get("/v1/x509/trust-anchors", async (_request, reply) => {
    const { jwks } = await publishTrustAnchors(domain);
    return reply.header("cache-control", CACHE_CONTROL).type("application/jwk-set+json").send(JSON.stringify(jwks));
  });
  app.get("/v1/x509/trust-anchors.pem", async (_request, reply) => {
    const { pem } = await publishTrustAnchors(domain);
    return reply.header("cache-control", CACHE_CONTROL).type("application/pem-certificate-chain").send(pem);
  });
}
