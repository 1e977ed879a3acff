import type { App } from "@attesto/runtime/http";
import {
  type AuthorizationServerMetadata,
  zAuthorizationServerMetadata,
} from "../domain/create-authorization-server-metadata.js";

/** `GET /.well-known/oauth-authorization-server` (RFC 8414, this service's README). */
export function registerGetAuthorizationServerMetadataRoute(app: App, metadata: AuthorizationServerMetadata): void {
  app.get(
    "/.well-known/oauth-authorization-server",
    { schema: { response: { 200: zAuthorizationServerMetadata } } },
    async () => metadata,
  );
}
