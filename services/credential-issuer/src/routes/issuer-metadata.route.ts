import type { App } from "@attesto/runtime/http";
import { createIssuerMetadata } from "../domain/create-issuer-metadata.js";
import type { IssuerDependencies } from "../domain/ports.js";
import { zIssuerMetadata } from "./issuer-documents.schema.js";
import { zTenantParams } from "./tenant-path-params.js";

/**
 * GET /.well-known/openid-credential-issuer/:tenant (OID4VCI 1.0 places the well-known segment
 * between host and path), and the older `/:tenant/.well-known/openid-credential-issuer` form.
 */
export function registerIssuerMetadataRoutes(app: App, deps: IssuerDependencies): void {
  for (const path of [
    "/.well-known/openid-credential-issuer/:tenant",
    "/:tenant/.well-known/openid-credential-issuer",
  ]) {
    app.get(
      path,
      { schema: { params: zTenantParams, response: { 200: zIssuerMetadata } }, config: { answers: [404] } },
      async (request) => createIssuerMetadata(deps, request.params.tenant),
    );
  }
}
