import { createEnvelopeSealer, type KeyEncryptionKey } from "@attesto/runtime/crypto";
import { gone } from "@attesto/runtime/errors";
import type { Kysely } from "kysely";
import { findX5cOfKey } from "./certificate.store.js";
import { configuredIssuingCa } from "./configured-issuing-ca.js";
import { DEFAULT_CA_COUNTRY } from "./create-ca-certificates.js";
import { generatedIssuingCa } from "./generated-issuing-ca.js";
import { findImportedX5cOfKey, listImportedTrustAnchors } from "./imported-certificate.store.js";
import { createImportedCertificates } from "./imported-certificates.js";
import { issuerLeafNames, issuerNamesOf } from "./issuer-names.js";
import type { CustodyDb } from "./key.store.js";
import type { KeyCustody } from "./key-custody.js";
import { assertKeyAlgorithm, generatePrivateKey, importPrivateJwk } from "./key-material.js";
import { createKeyVault } from "./key-vault.js";
import { signWithKey } from "./sign-with-key.js";
import { assertCallerTenant } from "./tenant.js";
import { createTenantCertificates } from "./tenant-certificates.js";
import { parseVerifierHost, verifierLeafNames } from "./verifier-names.js";

/** Decrypted private keys kept in memory by default. */
export const DEFAULT_KEY_CACHE_SIZE = 1000;

export interface KeyCustodyOptions {
  /** Kysely bound to the service's schema (custody tables from `custodyMigrations`). */
  db: Kysely<unknown>;
  /** KEY_ENCRYPTION_KEYS: the first wraps new keys; the others still unwrap until rewrapped. */
  keyEncryptionKeys: readonly KeyEncryptionKey[];
  /** ISSUING_CA_CERT_PEM / ISSUING_CA_KEY_PEM; when absent a CA is generated once and stored. */
  issuingCa?: { certPem: string; keyPem: string };
  /** SIGNING_CERT_VALIDITY_DAYS. */
  signingCertValidityDays: number;
  /** CA_COUNTRY: countryName of a CA generated here (ISO 3166-1 alpha-2); `UT` when absent. */
  caCountry?: string;
  /**
   * CREDENTIAL_ISSUER_URL: the credential issuer's public URL. A tenant's credentials carry
   * `iss` = `<url>/<tenant>`, which its signing certificate names in subjectAltName.
   */
  credentialIssuerUrl: string;
  /** The time certificates and key records are stamped with (the service's clock). */
  now: () => Date;
  keyCacheSize?: number;
}

/**
 * Key custody over PostgreSQL. Key ids are random UUIDs (handles that reveal nothing about the key
 * and cannot collide across tenants); callers wanting an RFC 7638 thumbprint compute it from the
 * public JWK. Throws at once on an invalid KEK list or issuing CA configuration.
 */
export function createKeyCustody(options: KeyCustodyOptions): KeyCustody {
  const db = options.db as CustodyDb;
  const { now } = options;
  const sealer = createEnvelopeSealer([...options.keyEncryptionKeys]);
  const vault = createKeyVault({ db, sealer, now, cacheSize: options.keyCacheSize ?? DEFAULT_KEY_CACHE_SIZE });
  const issuingCa = options.issuingCa
    ? configuredIssuingCa(options.issuingCa)
    : generatedIssuingCa({ db, vault, now, country: options.caCountry ?? DEFAULT_CA_COUNTRY });
  const namesOf = (tenant: string) => issuerNamesOf(options.credentialIssuerUrl, tenant);
  const certificates = createTenantCertificates({
    db,
    vault,
    issuingCa,
    validityDays: options.signingCertValidityDays,
    table: "custody_certificates",
    now,
  });
  const imported = createImportedCertificates({ db, vault, table: "custody_imported_certificates", namesOf, now });
  const verifierCertificates = createTenantCertificates({
    db,
    vault,
    issuingCa,
    validityDays: options.signingCertValidityDays,
    table: "custody_verifier_certificates",
    now,
  });
  const importedVerifier = createImportedCertificates({
    db,
    vault,
    table: "custody_imported_verifier_certificates",
    now,
  });

  return {
    async generateKey(tenant, alg) {
      assertCallerTenant(tenant);
      assertKeyAlgorithm(alg);
      return vault.hold(db, tenant, alg, generatePrivateKey(alg));
    },

    async importKey(tenant, alg, privateJwk) {
      assertCallerTenant(tenant);
      assertKeyAlgorithm(alg);
      return vault.hold(db, tenant, alg, importPrivateJwk(alg, privateJwk));
    },

    async sign(tenant, keyId, signingInput) {
      assertCallerTenant(tenant);
      const { held, privateKey } = await vault.load(tenant, keyId);
      return { signature: signWithKey(privateKey, held.alg, signingInput), alg: held.alg };
    },

    async describeKey(tenant, keyId) {
      assertCallerTenant(tenant);
      const held = await vault.describe(tenant, keyId);
      const x5c = (await findImportedX5cOfKey(db, tenant, keyId)) ?? (await findX5cOfKey(db, tenant, keyId));
      return x5c ? { ...held, x5c } : held;
    },

    async signingCertificate(tenant) {
      assertCallerTenant(tenant);
      return (await imported.find(tenant)) ?? certificates.get(tenant, issuerLeafNames(namesOf(tenant)));
    },

    async importSigningCertificate(tenant, chainDer, privateKeyPem) {
      assertCallerTenant(tenant);
      return imported.import(tenant, chainDer, privateKeyPem);
    },

    async clearSigningCertificate(tenant) {
      assertCallerTenant(tenant);
      return imported.clear(tenant);
    },

    async verifierCertificate(tenant, source, host) {
      assertCallerTenant(tenant);
      if (source === "imported") {
        const held = await importedVerifier.find(tenant);
        if (!held) throw gone("the tenant has no imported verifier certificate: import one or use the platform's");
        return { ...held, source };
      }
      return { ...(await verifierCertificates.get(tenant, verifierLeafNames(parseVerifierHost(host)))), source };
    },

    async importVerifierCertificate(tenant, chainDer, privateKeyPem) {
      assertCallerTenant(tenant);
      return importedVerifier.import(tenant, chainDer, privateKeyPem);
    },

    async clearVerifierCertificate(tenant) {
      assertCallerTenant(tenant);
      return importedVerifier.clear(tenant);
    },

    async trustAnchors() {
      return [(await issuingCa.get()).trustAnchor];
    },

    importedTrustAnchors: () => listImportedTrustAnchors(db),

    rewrapKeys: () => vault.rewrapAll(),
  };
}
