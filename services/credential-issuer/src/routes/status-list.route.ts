import { createHash } from "node:crypto";
import { STATUS_LIST_JWT_MEDIA_TYPE } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { zTenantPathSegment } from "@attesto/runtime/tenant-id";
import { z } from "zod";
import { getStatusListToken } from "../domain/get-status-list-token.js";
import type { IssuerDependencies } from "../domain/ports.js";

const zStatusListParams = z.object({
  tenant: zTenantPathSegment(),
  listId: z.string().min(1).max(100),
});

/**
 * GET /status-lists/:tenant/:listId (public, this service's README "Status lists"): the Status
 * List Token, `application/statuslist+jwt`, `Cache-Control: public, max-age=<ttl>`, a strong ETag
 * of the token (If-None-Match answers 304) and CORS for browser-based verifiers.
 */
export function registerStatusListRoute(app: App, deps: IssuerDependencies): void {
  app.get(
    "/status-lists/:tenant/:listId",
    { schema: { params: zStatusListParams }, config: { answers: [304, 404], produces: STATUS_LIST_JWT_MEDIA_TYPE } },
    async (request, reply) => {
      const { token } = await getStatusListToken(deps, request.params.tenant, request.params.listId);
      const etag = `"${createHash("sha256").update(token).digest("base64url")}"`;
      reply
        .header("cache-control", `public, max-age=${deps.statusListTtlSeconds}`)
        .header("etag", etag)
        .header("access-control-allow-origin", "*")
        .header("vary", "accept-encoding");
      const ifNoneMatch = request.headers["if-none-match"];
      if (ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
        return reply.code(304).send();
      }
      return reply.type(STATUS_LIST_JWT_MEDIA_TYPE).send(token);
    },
  );
}
