import { gone, notFound } from "@attesto/runtime/errors";
import { issuerIdentifierOf } from "./issuer-identifier.js";
import { isIssuerActive, requestTenantScope } from "./issuer-lifecycle.js";
import { type Offer, preAuthorizedCodeContext } from "./offer.js";
import type { IssuerDependencies } from "./ports.js";

export const PRE_AUTHORIZED_CODE_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

/** The OID4VCI CredentialOffer wallets fetch from `credential_offer_uri` (this service's README). */
export interface CredentialOfferDocument {
  credential_issuer: string;
  credential_configuration_ids: string[];
  grants: {
    [PRE_AUTHORIZED_CODE_GRANT]?: { "pre-authorized_code": string };
    authorization_code?: { issuer_state: string; authorization_server: string };
  };
  expires_at: string;
}

function grantsOf(
  deps: Pick<IssuerDependencies, "authorizationServerUrl" | "sealer">,
  offer: Offer,
): CredentialOfferDocument["grants"] {
  if (offer.grant.type === "authorization-code") {
    return {
      authorization_code: { issuer_state: offer.grant.issuerState, authorization_server: deps.authorizationServerUrl },
    };
  }
  const code = new TextDecoder().decode(deps.sealer.open(offer.grant.sealedCode, preAuthorizedCodeContext(offer.id)));
  return { [PRE_AUTHORIZED_CODE_GRANT]: { "pre-authorized_code": code } };
}

/** GET /v1/offers/:offerId: 404 unknown, 410 expired, else the offer document. */
export async function getOfferDocument(
  deps: Pick<IssuerDependencies, "authorizationServerUrl" | "issuerUrl" | "now" | "offers" | "offerMemory"> &
    Pick<IssuerDependencies, "sealer" | "tenants">,
  offerId: string,
): Promise<CredentialOfferDocument> {
  // Its barrier runs beside the offer read; the tenant check after it awaits that barrier.
  const scope = requestTenantScope(deps);
  // As this process created it (offer-memory.ts: what the document shows never changes), else read.
  const offer = deps.offerMemory.find(offerId) ?? (await deps.offers.findById(offerId));
  if (!offer) throw notFound("Offer not found");
  if (offer.expiresAt.getTime() <= deps.now().getTime()) throw gone("Offer has expired");
  // A deactivated tenant's open offers expire with it.
  if (!(await isIssuerActive(deps, offer.tenant, offer.createdAt, scope))) throw gone("Offer has expired");
  return {
    credential_issuer: issuerIdentifierOf(deps.issuerUrl, offer.tenant),
    credential_configuration_ids: [offer.credentialConfigurationId],
    grants: grantsOf(deps, offer),
    expires_at: offer.expiresAt.toISOString(),
  };
}
