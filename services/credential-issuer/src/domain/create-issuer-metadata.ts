import { SIGNATURE_ALGORITHMS } from "@attesto/protocol";
import { COSE_ALGORITHMS } from "@attesto/protocol/mdoc";
import { notFound } from "@attesto/runtime/errors";
import { isTenantId } from "@attesto/runtime/tenant-id";
import type { CredentialDisplay } from "./issuer-configuration.js";
import { credentialEndpointOf, issuerIdentifierOf, notificationEndpointOf } from "./issuer-identifier.js";
import type { CredentialConfiguration, IssuerDependencies, IssuerTenant, JsonObject } from "./ports.js";

/** How credentials are bound to holders: a DID (`kid` in the proof) or a bare key (`jwk`). */
export const BINDING_METHODS = ["did", "jwk"];
/** Most key proofs (credentials) one credential request may carry. */
export const MAX_BATCH_SIZE = 10;
/** Locale of the issuer's display name (tenants register one name). */
const DEFAULT_LOCALE = "en-US";

export interface CredentialClaimDescription {
  path: Array<string | number | null>;
  mandatory?: boolean;
  display?: Array<{ name: string; locale?: string }>;
}

/** How mdoc credentials are bound to holders: the device key in the MSO (OID4VCI 1.0 A.2). */
export const MDOC_BINDING_METHODS = ["cose_key"];
/** Device keys of mdocs: P-256 (HAIP), so the proofs that carry them are ES256. */
export const MDOC_PROOF_ALGORITHMS = ["ES256"];

export interface CredentialConfigurationMetadata {
  format: "dc+sd-jwt" | "mso_mdoc";
  scope: string;
  /** SD-JWT VC configurations. */
  vct?: string;
  /** mdoc configurations (OID4VCI 1.0 A.2.2). */
  doctype?: string;
  /** JWS names for SD-JWT VC; COSE algorithm ids (-7 = ES256) for mdoc. */
  credential_signing_alg_values_supported: Array<string | number>;
  cryptographic_binding_methods_supported: string[];
  proof_types_supported: { jwt: { proof_signing_alg_values_supported: string[] } };
  credential_metadata?: { display?: CredentialDisplay[]; claims?: CredentialClaimDescription[] };
  /** Draft-13 placement of display, kept for older wallets. */
  display?: CredentialDisplay[];
}

export interface CredentialIssuerMetadata {
  credential_issuer: string;
  authorization_servers: string[];
  credential_endpoint: string;
  nonce_endpoint: string;
  notification_endpoint: string;
  batch_credential_issuance: { batch_size: number };
  display: Array<{ name: string; locale: string }>;
  credential_configurations_supported: Record<string, CredentialConfigurationMetadata>;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const stringOf = (value: unknown) => (typeof value === "string" ? value : undefined);

/** SD-JWT VC type metadata `display` (with `rendering.simple`) -> OID4VCI display entries. */
function displayOf(metadata: JsonObject): CredentialDisplay[] {
  const entries = Array.isArray(metadata.display) ? metadata.display.filter(isObject) : [];
  return entries.flatMap((entry) => {
    const name = stringOf(entry.name);
    if (!name) return [];
    const simple = isObject(entry.rendering) && isObject(entry.rendering.simple) ? entry.rendering.simple : {};
    const logo = isObject(simple.logo) ? simple.logo : undefined;
    const background = isObject(simple.background_image) ? simple.background_image : undefined;
    const display: CredentialDisplay = { name };
    const locale = stringOf(entry.locale);
    const description = stringOf(entry.description);
    if (locale) display.locale = locale;
    if (description) display.description = description;
    if (stringOf(simple.background_color)) display.background_color = stringOf(simple.background_color);
    if (stringOf(simple.text_color)) display.text_color = stringOf(simple.text_color);
    if (logo && stringOf(logo.uri)) {
      display.logo = {
        uri: stringOf(logo.uri)!,
        ...(stringOf(logo.alt_text) ? { alt_text: stringOf(logo.alt_text) } : {}),
      };
    }
    if (background && stringOf(background.uri)) display.background_image = { uri: stringOf(background.uri)! };
    return [display];
  });
}

/** Type metadata `claims` (labels per locale) -> OID4VCI claim descriptions. */
function claimsOf(metadata: JsonObject): CredentialClaimDescription[] {
  const claims = Array.isArray(metadata.claims) ? metadata.claims.filter(isObject) : [];
  return claims.flatMap((claim) => {
    if (!Array.isArray(claim.path)) return [];
    const description: CredentialClaimDescription = { path: claim.path as Array<string | number | null> };
    if (typeof claim.mandatory === "boolean") description.mandatory = claim.mandatory;
    const labels = Array.isArray(claim.display) ? claim.display.filter(isObject) : [];
    const display = labels.flatMap((label) => {
      const name = stringOf(label.label) ?? stringOf(label.name);
      if (!name) return [];
      return [{ name, ...(stringOf(label.locale) ? { locale: stringOf(label.locale) } : {}) }];
    });
    if (display.length > 0) description.display = display;
    return [description];
  });
}

/** What the Credential Issuer Metadata is built from. */
export type IssuerMetadataDependencies = Pick<IssuerDependencies, "tenants" | "issuerConfigurations"> &
  Pick<IssuerDependencies, "credentialTypes" | "issuerUrl" | "authorizationServerUrl">;

async function configurationMetadata(
  deps: Pick<IssuerDependencies, "credentialTypes">,
  configuration: CredentialConfiguration,
  displayOverride: CredentialDisplay[] | undefined,
): Promise<CredentialConfigurationMetadata> {
  const type = await deps.credentialTypes.findByVct(configuration.vct);
  const entry: CredentialConfigurationMetadata =
    type?.format === "mso_mdoc"
      ? {
          format: "mso_mdoc",
          scope: configuration.id,
          doctype: type.doctype,
          // mdocs are signed with the tenant's X.509 key in key custody: P-256, ES256.
          credential_signing_alg_values_supported: [COSE_ALGORITHMS.ES256],
          cryptographic_binding_methods_supported: [...MDOC_BINDING_METHODS],
          proof_types_supported: { jwt: { proof_signing_alg_values_supported: [...MDOC_PROOF_ALGORITHMS] } },
        }
      : {
          format: "dc+sd-jwt",
          scope: configuration.id,
          vct: configuration.vct,
          credential_signing_alg_values_supported: [...SIGNATURE_ALGORITHMS],
          cryptographic_binding_methods_supported: [...BINDING_METHODS],
          proof_types_supported: { jwt: { proof_signing_alg_values_supported: [...SIGNATURE_ALGORITHMS] } },
        };
  if (!type && !displayOverride?.length) return entry;
  // A display declared in the tenant's issuer configuration replaces the type's.
  const display = displayOverride?.length ? displayOverride : type ? displayOf(type.metadata) : [];
  const claims = type ? claimsOf(type.metadata) : [];
  entry.credential_metadata = {
    ...(display.length > 0 ? { display } : {}),
    ...(claims.length > 0 ? { claims } : {}),
  };
  if (display.length > 0) entry.display = display;
  return entry;
}

/**
 * A tenant that may be addressed by URL, or 404. The directory is never behind the trust registry:
 * a deactivated tenant's metadata and landing page are gone at once on every replica.
 */
export async function findIssuerTenant(
  deps: Pick<IssuerDependencies, "tenants">,
  tenant: string,
): Promise<IssuerTenant> {
  const found = isTenantId(tenant) ? await deps.tenants.find(tenant) : undefined;
  if (!found) throw notFound("Tenant not found");
  return found;
}

/** The Credential Issuer Metadata of a tenant (this service's README, OID4VCI 1.0 §12.2). */
export async function createIssuerMetadata(
  deps: IssuerMetadataDependencies,
  tenantId: string,
): Promise<CredentialIssuerMetadata> {
  const tenant = await findIssuerTenant(deps, tenantId);
  // With an issuer configuration, only the configurations it offers, with its displays.
  const configured = await deps.issuerConfigurations.find(tenant.tenant);
  const offered = new Map(configured?.credentialConfigurations.map((c) => [c.id, c.display]));
  const listed = configured ? tenant.configurations.filter((c) => offered.has(c.id)) : tenant.configurations;
  const entries = await Promise.all(
    listed.map(
      async (configuration) =>
        [configuration.id, await configurationMetadata(deps, configuration, offered.get(configuration.id))] as const,
    ),
  );
  // mdocs are signed only with the tenant's X.509 key (their x5chain): a tenant configured for DID
  // signing cannot issue them (its mdoc offers are refused), so its metadata does not list them.
  const issuable =
    configured?.signingMode === "did" ? entries.filter(([, entry]) => entry.format !== "mso_mdoc") : entries;
  return {
    credential_issuer: issuerIdentifierOf(deps.issuerUrl, tenant.tenant),
    authorization_servers: [deps.authorizationServerUrl],
    credential_endpoint: credentialEndpointOf(deps.issuerUrl),
    nonce_endpoint: `${deps.issuerUrl}/v1/nonce`,
    notification_endpoint: notificationEndpointOf(deps.issuerUrl),
    batch_credential_issuance: { batch_size: MAX_BATCH_SIZE },
    display: [{ name: tenant.name, locale: DEFAULT_LOCALE }],
    credential_configurations_supported: Object.fromEntries(issuable),
  };
}
