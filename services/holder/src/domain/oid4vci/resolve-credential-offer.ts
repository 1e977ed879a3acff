import { invalidOffer } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, isJsonObject, jsonObjectOf } from "../http/read-json.js";
import { appendedWellKnownUrlOf, sameIdentifier, wellKnownUrlOf } from "../http/well-known.js";
import type { HolderDependencies } from "../ports.js";
import { parseCredentialOfferLink } from "./parse-credential-offer-link.js";
import {
  type CredentialConfigurationMetadata,
  type CredentialIssuerMetadata,
  type CredentialOfferDocument,
  firstIssue,
  PRE_AUTHORIZED_CODE_GRANT,
  zCredentialConfiguration,
  zCredentialIssuerMetadata,
  zCredentialOffer,
} from "./z-credential-offer.js";

/** A pre-authorized code grant of an offer. */
export interface PreAuthorizedGrant {
  code: string;
  txCodeRequired: boolean;
  /** The authorization server the offer names for this grant, if any. */
  authorizationServer?: string;
}

/** The authorization code grant of an offer (OID4VCI 1.0 §4.1.1). */
export interface AuthorizationCodeGrant {
  /** Ties the authorization request to the offer at the issuer. */
  issuerState: string | undefined;
  /** The authorization server the offer names for this grant, if any. */
  authorizationServer?: string;
}

/** An offer checked against its issuer's metadata. */
export interface ResolvedCredentialOffer {
  credentialIssuer: string;
  configurationIds: string[];
  /** Every offered configuration, from the issuer metadata. */
  configurations: Map<string, CredentialConfigurationMetadata>;
  preAuthorizedGrant: PreAuthorizedGrant | undefined;
  hasAuthorizationCodeGrant: boolean;
  authorizationCodeGrant: AuthorizationCodeGrant | undefined;
  expiresAt: Date | undefined;
  metadata: CredentialIssuerMetadata;
}

export const ISSUER_METADATA_SUFFIX = "openid-credential-issuer";

async function fetchOfferDocument(deps: Pick<HolderDependencies, "http">, uri: string): Promise<unknown> {
  const response = await fetchFromThirdParty(deps, uri, "credential offer", invalidOffer, {
    method: "GET",
    headers: { accept: "application/json" },
  });
  if (response.status === 404) throw invalidOffer("credential offer not found (the issuer answered 404)");
  if (response.status === 410) throw invalidOffer("credential offer has expired (the issuer answered 410)");
  if (response.status !== 200) {
    throw invalidOffer(`credential offer could not be fetched (${describeFailure(response)})`);
  }
  const document = jsonObjectOf(response);
  if (!document) throw invalidOffer("credential offer is not a JSON object");
  return document;
}

function parseOffer(document: unknown, now: Date): CredentialOfferDocument & { expiresAt?: Date } {
  const parsed = zCredentialOffer.safeParse(document);
  if (!parsed.success) throw invalidOffer(`credential offer is malformed: ${firstIssue(parsed.error)}`);
  const offer = parsed.data;
  let expiresAt: Date | undefined;
  if (offer.expires_at !== undefined) {
    expiresAt = new Date(offer.expires_at);
    if (Number.isNaN(expiresAt.getTime())) throw invalidOffer("credential offer expires_at is not a timestamp");
    if (expiresAt.getTime() <= now.getTime()) throw invalidOffer("credential offer has expired");
  }
  return { ...offer, ...(expiresAt ? { expiresAt } : {}) };
}

/**
 * Credential Issuer Metadata (OID4VCI 1.0 §12.2.2): `https://host/.well-known/openid-credential-issuer/<path>`,
 * then the older appended form when the first is 404. Its `credential_issuer` must be the offer's.
 */
export async function fetchIssuerMetadata(
  deps: Pick<HolderDependencies, "http">,
  credentialIssuer: string,
): Promise<CredentialIssuerMetadata> {
  const urls = [wellKnownUrlOf(credentialIssuer, ISSUER_METADATA_SUFFIX)];
  const appended = appendedWellKnownUrlOf(credentialIssuer, ISSUER_METADATA_SUFFIX);
  if (appended !== urls[0]) urls.push(appended);
  let lastFailure = "";
  for (const url of urls) {
    const response = await fetchFromThirdParty(deps, url, "credential issuer metadata", invalidOffer, {
      method: "GET",
      headers: { accept: "application/json" },
    });
    if (response.status === 404) {
      lastFailure = "not found (404)";
      continue;
    }
    if (response.status !== 200) throw invalidOffer(`credential issuer metadata: ${describeFailure(response)}`);
    const parsed = zCredentialIssuerMetadata.safeParse(jsonObjectOf(response));
    if (!parsed.success) throw invalidOffer(`credential issuer metadata is malformed: ${firstIssue(parsed.error)}`);
    if (!sameIdentifier(parsed.data.credential_issuer, credentialIssuer)) {
      throw invalidOffer("credential issuer metadata names another credential_issuer than the offer");
    }
    return parsed.data;
  }
  throw invalidOffer(`credential issuer metadata not found for ${credentialIssuer} (${lastFailure})`);
}

function configurationsOf(
  metadata: CredentialIssuerMetadata,
  ids: string[],
): Map<string, CredentialConfigurationMetadata> {
  const configurations = new Map<string, CredentialConfigurationMetadata>();
  for (const id of ids) {
    const entry = metadata.credential_configurations_supported[id];
    if (!isJsonObject(entry)) {
      throw invalidOffer("an offered credential configuration is not in the issuer metadata");
    }
    const parsed = zCredentialConfiguration.safeParse(entry);
    if (!parsed.success) {
      throw invalidOffer(`an offered credential configuration is malformed: ${firstIssue(parsed.error)}`);
    }
    configurations.set(id, parsed.data);
  }
  return configurations;
}

/**
 * An offer link resolved as a wallet does: parse the link, fetch the offer by reference (404 and
 * 410 are reported as such), check it (and its expiry), fetch the issuer metadata by the
 * well-known rule, and find every offered configuration in it. Every failure is 400 `invalid_offer`.
 */
export async function resolveCredentialOffer(
  deps: Pick<HolderDependencies, "http" | "now">,
  link: string,
): Promise<ResolvedCredentialOffer> {
  const parsedLink = parseCredentialOfferLink(link);
  const document = parsedLink.kind === "value" ? parsedLink.offer : await fetchOfferDocument(deps, parsedLink.uri);
  const offer = parseOffer(document, deps.now());
  const issuerProblem = deps.http.checkUrl(offer.credential_issuer);
  if (issuerProblem) throw invalidOffer(`credential offer credential_issuer ${issuerProblem}`);
  const metadata = await fetchIssuerMetadata(deps, offer.credential_issuer);
  const grant = offer.grants?.[PRE_AUTHORIZED_CODE_GRANT];
  const codeGrant = offer.grants?.authorization_code;
  return {
    credentialIssuer: metadata.credential_issuer,
    configurationIds: offer.credential_configuration_ids,
    configurations: configurationsOf(metadata, offer.credential_configuration_ids),
    preAuthorizedGrant: grant
      ? {
          code: grant["pre-authorized_code"],
          txCodeRequired: grant.tx_code !== undefined,
          ...(grant.authorization_server ? { authorizationServer: grant.authorization_server } : {}),
        }
      : undefined,
    hasAuthorizationCodeGrant: codeGrant !== undefined,
    authorizationCodeGrant: codeGrant
      ? {
          issuerState: codeGrant.issuer_state,
          ...(codeGrant.authorization_server ? { authorizationServer: codeGrant.authorization_server } : {}),
        }
      : undefined,
    expiresAt: offer.expiresAt,
    metadata,
  };
}
