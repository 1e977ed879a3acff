import { createIssuerMetadata, type IssuerMetadataDependencies } from "./create-issuer-metadata.js";
import { offerLinksOf } from "./create-offer.js";
import type { CredentialDisplay } from "./issuer-configuration.js";
import { isUuid } from "./offer.js";
import type { IssuerDependencies } from "./ports.js";

/** A credential type the tenant offers, as its landing page lists it. */
export interface OfferedType {
  /** The credential configuration id (`credential_configuration_ids` of offers). */
  id: string;
  /** Its display name (the issuer configuration's, else the type's), else the id. */
  name: string;
  description: string | undefined;
}

/** A live offer the landing page shows as a QR code: its deep link, nothing of its claims. */
export interface LiveOffer {
  deepLink: string;
  typeName: string;
  expiresAt: Date;
}

export interface TenantLanding {
  tenant: string;
  /** The tenant's display name. */
  name: string;
  /** The credential issuer identifier and metadata URL (the page's developer links). */
  issuer: string;
  /** Exactly what the tenant's metadata offers (its issuer configuration's list when it has one). */
  types: OfferedType[];
  /** Undefined: no offer asked for; `unavailable`: not a live offer of this tenant (unknown, used, expired, another's). */
  offer: LiveOffer | "unavailable" | undefined;
}

/** The display for English (or without locale), else the first. */
function preferredDisplay(displays: CredentialDisplay[] | undefined): CredentialDisplay | undefined {
  const entries = displays ?? [];
  return entries.find((d) => d.locale === undefined || d.locale.toLowerCase().startsWith("en")) ?? entries[0];
}

/**
 * What a tenant's landing page shows: its name, the credential types its metadata offers with their
 * display names, and, when `offerId` names a live offer of this tenant, that offer's deep link.
 * 404 for an unknown tenant (from the metadata).
 */
export async function describeTenantLanding(
  deps: IssuerMetadataDependencies & Pick<IssuerDependencies, "offers" | "issuerUrl" | "now">,
  tenant: string,
  offerId: string | undefined,
): Promise<TenantLanding> {
  const metadata = await createIssuerMetadata(deps, tenant);
  const types = Object.entries(metadata.credential_configurations_supported).map(([id, configuration]) => {
    const display = preferredDisplay(configuration.credential_metadata?.display ?? configuration.display);
    return { id, name: display?.name ?? id, description: display?.description };
  });
  return {
    tenant,
    name: metadata.display[0]?.name ?? tenant,
    issuer: metadata.credential_issuer,
    types,
    offer: offerId === undefined ? undefined : await liveOfferOf(deps, tenant, offerId, types),
  };
}

async function liveOfferOf(
  deps: Pick<IssuerDependencies, "issuerUrl" | "now" | "offers">,
  tenant: string,
  offerId: string,
  types: OfferedType[],
): Promise<LiveOffer | "unavailable"> {
  const offer = isUuid(offerId) ? await deps.offers.findById(offerId.toLowerCase()) : undefined;
  const live = offer?.tenant === tenant && offer.status === "offered" && offer.expiresAt > deps.now();
  if (!offer || !live) return "unavailable";
  return {
    deepLink: offerLinksOf(deps.issuerUrl, offer.id).deepLink,
    typeName: types.find((t) => t.id === offer.credentialConfigurationId)?.name ?? offer.credentialConfigurationId,
    expiresAt: offer.expiresAt,
  };
}
