import { createHash } from "node:crypto";
import { type App, createLoadingCache } from "@attesto/runtime";
import { createJwtVcIssuerMetadata } from "../domain/create-jwt-vc-issuer-metadata.js";
import type { IssuerDependencies } from "../domain/dependencies.js";
import { zTenantParams } from "./tenant-path-params.js";

/** How long verifiers (and this process) may reuse a tenant's document. */
const METADATA_MAX_AGE_SECONDS = 300;
/** How long the document is reused here before the keys and the ledger are read again. */
const METADATA_CACHE_TTL_MS = 60_000;
/** Tenants whose document is kept at once (the least recently used goes first). */
const CACHED_DOCUMENTS = 1_000;

/**
 * GET /.well-known/jwt-vc-issuer/:tenant (SD-JWT VC draft, JWT VC Issuer Metadata): the well-known
 * segment goes between host and path of the tenant's `iss`. Public and cacheable: `Cache-Control`
 * and a strong `ETag` (If-None-Match answers 304).
 */
export function registerJwtVcIssuerMetadataRoute(app: App, deps: IssuerDependencies): void {
  const documents = createLoadingCache<{ body: string; etag: string }>({
    max: CACHED_DOCUMENTS,
    ttlMs: METADATA_CACHE_TTL_MS,
    now: () => deps.now().getTime(),
  });
  const documentOf = (tenant: string) =>
    documents.get(tenant, async () => {
      const body = JSON.stringify(await createJwtVcIssuerMetadata(deps, tenant));
      return { body, etag: `"${createHash("sha256").update(body).digest("base64url")}"` };
    });
  app.get("/.well-known/jwt-vc-issuer/:tenant", { schema: { params: zTenantParams } }, async (request, reply) => {
    const { body, etag } = await documentOf(request.params.tenant);
    reply
      .header("cache-control", `public, max-age=${METADATA_MAX_AGE_SECONDS}`)
      .header("etag", etag)
      .header("vary", "accept-encoding");
    const ifNoneMatch = request.headers["if-none-match"];
    if (ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
      return reply.code(304).send();
    }
    return reply.type("application/json; charset=utf-8").send(body);
  });
}
