import type { App } from "@attesto/runtime/http";
import { z } from "zod";

// An empty segment (`/v1/schemas/x/`, which is also what a client makes of `/v1/schemas/x/.`) is a 400:
// redirecting it would point at a path with no version.
const zLegacyParams = z.object({ type: z.string().min(1), version: z.string().min(1) });

/**
 * GET /v1/schemas/:type/:version: deprecated alias of /schemas/:type/:version. Always a 302 for
 * non-empty segments, without checking that the type exists (a 404 can come from the target).
 */
export function registerRedirectLegacySchemaRoute(app: App): void {
  app.get(
    "/v1/schemas/:type/:version",
    { schema: { params: zLegacyParams }, config: { answers: [302] } },
    async (request, reply) => {
      const { type, version } = request.params;
      const target = `/schemas/${encodeURIComponent(type)}/${encodeURIComponent(version)}`;
      return reply
        .code(302)
        .header("location", target)
        .header("deprecation", "true")
        .header("link", `<${target}>; rel="successor-version"`)
        .send();
    },
  );
}
