import { createHash } from "node:crypto";
import type { App } from "@attesto/runtime/http";
import type { FastifyReply } from "fastify";
import { createJwtVcIssuerMetadata } from "../domain/create-jwt-vc-issuer-metadata.js";
import type { IssuerDependencies } from "../domain/ports.js";
import { zJwtVcIssuerMetadata } from "./issuer-documents.schema.js";
import { zTenantParams } from "./tenant-path-params.js";

/**
 * How long verifiers may reuse a tenant's document. Short, because a tenant's new DID-path key is
 * listed from its first offer on; verifiers that meet an unknown `kid` fetch again anyway.
 */
const METADATA_MAX_AGE_SECONDS = 60;

/**
 * GET /.well-known/jwt-vc-issuer/:tenant (SD-JWT VC draft, JWT VC Issuer Metadata): the well-known
 * segment goes between host and path of the tenant's `iss`. Public and cacheable: `Cache-Control`
 * and a strong `ETag` (If-None-Match answers 304). The document is built on every request, never
 * kept in this process: a key recorded by any replica is listed at once (a per-process cache made a
 * new key invisible to verifiers for a minute, failing its credentials).
 */
export function registerJwtVcIssuerMetadataRoute(app: App, deps: IssuerDependencies): void {
  const documentOf = async (tenant: string) => {
    const document = await createJwtVcIssuerMetadata(deps, tenant);
    const etag = `"${createHash("sha256").update(JSON.stringify(document)).digest("base64url")}"`;
    return { document, etag };
  };
  app.get(
    "/.well-known/jwt-vc-issuer/:tenant",
    {
      schema: { params: zTenantParams, response: { 200: zJwtVcIssuerMetadata } },
      config: { answers: [304, 404] },
    },
    async (request, reply) => {
      const { document, etag } = await documentOf(request.params.tenant);
      reply
        .header("cache-control", `public, max-age=${METADATA_MAX_AGE_SECONDS}`)
        .header("etag", etag)
        .header("vary", "accept-encoding");
      const ifNoneMatch = request.headers["if-none-match"];
      if (ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
        // 304 has no body: the typed reply knows only the 200 document.
        return (reply as FastifyReply).code(304).send();
      }
      return reply.type("application/json; charset=utf-8").send(document);
    },
  );
}
