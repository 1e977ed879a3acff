import type { HolderDependencies } from "../ports.js";
import { resolveCredentialOffer } from "./resolve-credential-offer.js";
import type { DisplayEntry } from "./z-credential-offer.js";

/** POST /v1/oid4vci/offer-details (this service's README). */
export interface CredentialOfferDetails {
  issuer: string;
  issuer_name: string | null;
  issuer_logo_uri: string | null;
  credential_configurations: Array<{
    id: string;
    format: string;
    vct: string | null;
    display: { name: string; locale: string | null };
  }>;
  pre_authorized_code_grant: { pre_authorized_code: string; user_pin_required: boolean } | null;
  expires_at: string | null;
}

/** The display entry to show: the first English one, else the first one with a name. */
export function preferredDisplay(entries: DisplayEntry[] | undefined): DisplayEntry | undefined {
  const named = (entries ?? []).filter((entry) => typeof entry.name === "string" && entry.name.length > 0);
  return named.find((entry) => entry.locale?.toLowerCase().startsWith("en")) ?? named[0];
}

/** What an offer link offers, for the holder to decide: issuer, configurations, grant, expiry. */
export async function describeCredentialOffer(
  deps: Pick<HolderDependencies, "http" | "now">,
  link: string,
): Promise<CredentialOfferDetails> {
  const offer = await resolveCredentialOffer(deps, link);
  const issuerDisplay = preferredDisplay(offer.metadata.display);
  return {
    issuer: offer.credentialIssuer,
    issuer_name: issuerDisplay?.name ?? null,
    issuer_logo_uri: issuerDisplay?.logo?.uri ?? null,
    credential_configurations: offer.configurationIds.map((id) => {
      const configuration = offer.configurations.get(id)!;
      const display = preferredDisplay(configuration.credential_metadata?.display ?? configuration.display);
      return {
        id,
        format: configuration.format,
        vct: configuration.vct ?? null,
        display: { name: display?.name ?? id, locale: display?.locale ?? null },
      };
    }),
    pre_authorized_code_grant: offer.preAuthorizedGrant
      ? {
          pre_authorized_code: offer.preAuthorizedGrant.code,
          user_pin_required: offer.preAuthorizedGrant.txCodeRequired,
        }
      : null,
    expires_at: offer.expiresAt?.toISOString() ?? null,
  };
}
