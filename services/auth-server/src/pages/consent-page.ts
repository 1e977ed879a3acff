import type { OfferedClaim } from "../domain/authorization/offered-claims.js";
import type { ConsentView } from "../domain/authorization/start-authorization.js";
import { escapeHtml, type Page, renderPage } from "./render-page.js";

/** Where the consent form posts (relative: the page is served by this server). */
export const CONSENT_FORM_ACTION = "/v1/authorize/submit";

/** The offered claims as nested lists: an object claim is a group holding its parts. No values. */
function claimList(claims: OfferedClaim[]): string {
  const item = (claim: OfferedClaim) =>
    claim.parts.length > 0
      ? `<li class="group"><span class="group-label">${escapeHtml(claim.label)}</span>${claimList(claim.parts)}</li>`
      : `<li>${escapeHtml(claim.label)}</li>`;
  return `<ul>${claims.map(item).join("")}</ul>`;
}

function credentialSection(credential: ConsentView["credentials"][number], index: number): string {
  const headingId = `credential-${index}`;
  const claims =
    credential.claims.length > 0
      ? `<h3>Information it will contain</h3>
${claimList(credential.claims)}`
      : "";
  return `<section class="credential" aria-labelledby="${headingId}">
<h2 id="${headingId}">${escapeHtml(credential.name)}</h2>
${credential.description ? `<p>${escapeHtml(credential.description)}</p>` : ""}
<p class="muted">Credential type: <code>${escapeHtml(credential.id)}</code></p>
${claims}
</section>`;
}

/** The consent page: who issues what to which wallet, and Approve / Deny (a CSRF-protected form). */
export function consentPage(view: ConsentView): Page {
  const returnTo = new URL(view.redirectUri);
  const returnLabel =
    returnTo.protocol === "https:" || returnTo.protocol === "http:" ? returnTo.host : returnTo.protocol;
  const body = `<h1 id="title">Add a credential to your wallet</h1>
<p><strong id="issuer-name">${escapeHtml(view.issuerName)}</strong> offers to issue ${
    view.credentials.length === 1 ? "this credential" : "these credentials"
  } to the wallet <code>${escapeHtml(view.clientId)}</code>.</p>
${view.credentials.map(credentialSection).join("\n")}
<form method="post" action="${CONSENT_FORM_ACTION}" aria-labelledby="title">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<div class="actions">
<button type="submit" class="primary" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="muted">Either way you return to your wallet at <code>${escapeHtml(returnLabel)}</code>.</p>`;
  return renderPage({ title: "Add a credential to your wallet", body, formAction: ["'self'", view.redirectSource] });
}
