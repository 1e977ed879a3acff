import type { App } from "@attesto/runtime/http";
import { findIssuerTenant } from "../domain/create-issuer-metadata.js";
import type { IssuerDependencies } from "../domain/dependencies.js";
import { issuerIdentifierOf } from "../domain/issuer-identifier.js";
import type { IssuerTenant } from "../domain/ports.js";
import { zTenantParams } from "./tenant-path-params.js";

/** First path segments that belong to the issuer's own endpoints, never to a tenant. */
const RESERVED_SEGMENTS = new Set([
  "credential",
  "health",
  "metrics",
  "v1",
  ".well-known",
  "favicon.ico",
  "robots.txt",
]);

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (character) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[character]!,
  );

const link = (href: string, text = href) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

/** The landing page: what a developer needs to find the tenant's issuer documents. */
export function renderLandingPage(deps: IssuerDependencies, tenant: IssuerTenant): string {
  const issuer = issuerIdentifierOf(deps.issuerUrl, tenant.tenant);
  const metadataUrl = `${deps.issuerUrl}/.well-known/openid-credential-issuer/${tenant.tenant}`;
  const configurations = tenant.configurations
    .map((c) => `<li><code>${escapeHtml(c.id)}</code>: ${link(c.vct)}</li>`)
    .join("\n        ");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(tenant.name)}: credential issuer</title>
  </head>
  <body>
    <main>
      <h1>${escapeHtml(tenant.name)}</h1>
      <p>OpenID4VCI credential issuer <code>${escapeHtml(issuer)}</code></p>
      <h2>Documents</h2>
      <ul>
        <li>Credential issuer metadata: ${link(metadataUrl)}</li>
        <li>Authorization server metadata: ${link(`${deps.authorizationServerUrl}/.well-known/oauth-authorization-server`)}</li>
        <li>Credential types (schemas): ${link(`${deps.links.schemaRegistryUrl}/schemas`)}</li>
        <li>DID configuration: ${link(`${deps.links.trustRegistryUrl}/.well-known/did-configuration.json/${tenant.tenant}`)}</li>
      </ul>
      <h2>Credential configurations</h2>
      <ul>
        ${configurations || "<li>none provisioned</li>"}
      </ul>
    </main>
  </body>
</html>
`;
}

/** GET /:tenant: the tenant's HTML landing page; 404 (JSON) for unknown tenants. */
export function registerTenantLandingRoute(app: App, deps: IssuerDependencies): void {
  app.get(
    "/:tenant",
    { schema: { params: zTenantParams }, config: { answers: [404], produces: "text/html" } },
    async (request, reply) => {
      if (RESERVED_SEGMENTS.has(request.params.tenant)) return reply.callNotFound();
      const tenant = await findIssuerTenant(deps, request.params.tenant);
      return reply.type("text/html; charset=utf-8").send(renderLandingPage(deps, tenant));
    },
  );
}
