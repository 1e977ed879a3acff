import type { AccessTokenPublicJwk } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import { z } from "zod";

const zJwks = z.object({
  keys: z.array(
    z.object({
      kty: z.literal("EC"),
      crv: z.literal("P-256"),
      x: z.string(),
      y: z.string(),
      kid: z.string(),
      alg: z.literal("ES256"),
      use: z.literal("sig"),
    }),
  ),
});

/** `GET /.well-known/jwks.json`: the public keys access tokens are signed with (the metadata's jwks_uri). */
export function registerGetJwksRoute(app: App, jwks: { keys: AccessTokenPublicJwk[] }): void {
  app.get("/.well-known/jwks.json", { schema: { response: { 200: zJwks } } }, async () => jwks);
}
