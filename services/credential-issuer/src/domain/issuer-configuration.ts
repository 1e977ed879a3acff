import { createHash } from "node:crypto";

/** OID4VCI 1.0 display of a credential configuration. */
export interface CredentialDisplay {
  name: string;
  locale?: string;
  description?: string;
  background_color?: string;
  text_color?: string;
  logo?: { uri: string; alt_text?: string };
  background_image?: { uri: string };
}

/** Signing path of offers that name no DID key (see IssuerService in issuer_configuration.proto). */
export type ConfiguredSigningMode = "did" | "x509";

/** One credential configuration a tenant's issuer offers, with its display override (empty: the type's). */
export interface OfferedConfiguration {
  id: string;
  display: CredentialDisplay[];
}

/**
 * A tenant's issuer configuration, declared by the operator (Issuer resource). Absent for a tenant
 * means the platform defaults: every provisioned configuration, type displays, X.509 when an offer
 * names no DID key, offers valid for 3600 s unless `expires_in` says otherwise.
 */
export interface IssuerConfiguration {
  tenant: string;
  /** Who declared it (`<namespace>/<name>` of the Issuer resource); diagnostics only. */
  issuerName: string;
  /** The only configurations the issuer lists in its metadata and accepts in offers. */
  credentialConfigurations: OfferedConfiguration[];
  /** Undefined: no preference (the platform default). */
  signingMode?: ConfiguredSigningMode;
  /** X.509 only: the custody key id the declared certificate chain belongs to (recorded). */
  signingKeyId?: string;
  /** Lifetime of offers whose request omits `expires_in`; undefined: the platform default. */
  defaultOfferTtlSeconds?: number;
  /**
   * Entries of each status list opened for the tenant from now on; undefined: STATUS_LIST_SIZE.
   * Lists opened earlier keep their size (a new size applies once they fill up).
   */
  statusListSize?: number;
  /** Lowercase hex SHA-256 of the normalized configuration (see digestOf). */
  digest: string;
  updatedAt: Date;
}

export type DeclaredIssuerConfiguration = Omit<IssuerConfiguration, "digest" | "updatedAt">;

/**
 * SHA-256 over the normalized configuration: configurations sorted by id (their order in metadata
 * follows the tenant's provisioning), display entries in their given order (wallets pick the first
 * matching locale), absent optional fields null. `statusListSize`, added later, is left out
 * when absent, so configurations declared before it keep their digest.
 */
export function digestOf(configuration: DeclaredIssuerConfiguration): string {
  const normalized = {
    tenant: configuration.tenant,
    issuerName: configuration.issuerName,
    credentialConfigurations: [...configuration.credentialConfigurations]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((c) => ({ id: c.id, display: c.display })),
    signingMode: configuration.signingMode ?? null,
    signingKeyId: configuration.signingKeyId ?? null,
    defaultOfferTtlSeconds: configuration.defaultOfferTtlSeconds ?? null,
    ...(configuration.statusListSize === undefined ? {} : { statusListSize: configuration.statusListSize }),
  };
  return createHash("sha256").update(JSON.stringify(normalized)).digest("hex");
}
