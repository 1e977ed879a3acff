import type { App } from "@attesto/runtime/http";
import { renderQrSvg } from "@attesto/runtime/link-page";
import { escapeHtml, PAGE_STYLE, PAGE_STYLE_SOURCE } from "@attesto/runtime/pages";
import { z } from "zod";
import type { IssuerDependencies } from "../domain/ports.js";
import { describeTenantLanding, type LiveOffer, type TenantLanding } from "../domain/tenant-landing.js";
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

const zLandingQuery = z.object({
  offer: z
    .string()
    .max(100)
    .optional()
    .describe("An offer id (offer_id): its QR code is shown while the offer is live"),
});

/** The page loads nothing: its one stylesheet is inline and allowed by hash; the QR code is inline SVG. */
export const LANDING_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_SOURCE}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const link = (href: string, text = href) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;

function offerSection(offer: LiveOffer | "unavailable" | undefined, qrSvg: string | undefined): string {
  if (offer === undefined) return "";
  if (offer === "unavailable") {
    return `<p id="offer-unavailable" class="offer" role="status">This offer is no longer available. Ask the issuer for a new one.</p>`;
  }
  return `<section id="offer" class="offer" aria-labelledby="offer-title">
<h2 id="offer-title">${escapeHtml(offer.typeName)}</h2>
<p>Scan the QR code with your wallet app, or open the offer in a wallet on this device.</p>
<div id="qr" class="qr" role="img" aria-label="QR code of the credential offer">${qrSvg ?? ""}</div>
<p><a id="open" class="open" href="${escapeHtml(offer.deepLink)}">Open in wallet</a></p>
<p class="muted">Valid until <time datetime="${offer.expiresAt.toISOString()}">${offer.expiresAt.toISOString()}</time></p>
</section>`;
}

/**
 * The tenant's landing page: its name, the credential types it offers with their display names, a
 * live offer's QR code when `?offer=` names one, and the documents a developer needs. Every text
 * from the tenant or the types is escaped; no claim value appears.
 */
export function renderLandingPage(
  deps: Pick<IssuerDependencies, "issuerUrl" | "authorizationServerUrl" | "links">,
  landing: TenantLanding,
  qrSvg?: string,
): string {
  const types = landing.types
    .map(
      (type) =>
        `<li class="type" data-id="${escapeHtml(type.id)}"><strong>${escapeHtml(type.name)}</strong>${
          type.description ? `<br><span class="muted">${escapeHtml(type.description)}</span>` : ""
        }</li>`,
    )
    .join("\n");
  const metadataUrl = `${deps.issuerUrl}/.well-known/openid-credential-issuer/${landing.tenant}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(landing.name)}: credentials</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
<h1 id="tenant-name">${escapeHtml(landing.name)}</h1>
<p>Credentials <strong>${escapeHtml(landing.name)}</strong> issues to your wallet (OpenID for Verifiable Credential Issuance).</p>
${offerSection(landing.offer, qrSvg)}
<h2>Credentials offered</h2>
${types ? `<ul id="types">\n${types}\n</ul>` : `<p id="types" class="muted">No credentials offered yet.</p>`}
<section class="credential" aria-labelledby="developers">
<h3 id="developers">For developers</h3>
<ul class="muted">
<li>Credential issuer: <code>${escapeHtml(landing.issuer)}</code></li>
<li>Metadata: ${link(metadataUrl)}</li>
<li>Authorization server: ${link(`${deps.authorizationServerUrl}/.well-known/oauth-authorization-server`)}</li>
<li>Credential types: ${link(`${deps.links.schemaRegistryUrl}/schemas`)}</li>
<li>DID configuration: ${link(`${deps.links.trustRegistryUrl}/.well-known/did-configuration.json/${landing.tenant}`)}</li>
</ul>
</section>
</main>
</body>
</html>
`;
}

/** GET /:tenant[?offer=<offer_id>]: the tenant's HTML landing page; 404 (JSON) for unknown tenants. */
export function registerTenantLandingRoute(app: App, deps: IssuerDependencies): void {
  const options = {
    schema: { params: zTenantParams, querystring: zLandingQuery },
    config: { answers: [404], produces: "text/html" },
  };
  app.get("/:tenant", options, async (request, reply) => {
    if (RESERVED_SEGMENTS.has(request.params.tenant)) return reply.callNotFound();
    const landing = await describeTenantLanding(deps, request.params.tenant, request.query.offer);
    const qrSvg = typeof landing.offer === "object" ? await renderQrSvg(landing.offer.deepLink) : undefined;
    return reply
      .header("content-security-policy", LANDING_PAGE_CSP)
      .header("cache-control", "no-store")
      .type("text/html; charset=utf-8")
      .send(renderLandingPage(deps, landing, qrSvg));
  });
}
