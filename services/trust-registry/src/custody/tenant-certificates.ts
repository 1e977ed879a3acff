import { createPublicKey } from "node:crypto";
import {
  type CertificateRow,
  findCertificate,
  insertCertificateOnce,
  replaceCertificate,
} from "./certificate.store.js";
import { base64Der, MILLISECONDS_PER_DAY, sameChain } from "./certificate-tools.js";
import { issueLeafCertificate } from "./issue-leaf-certificate.js";
import { carriesIssuerNames, type IssuerNames } from "./issuer-names.js";
import type { IssuingCa, IssuingCaSource } from "./issuing-ca.js";
import type { CustodyDb } from "./key.store.js";
import type { SigningCertificate } from "./key-custody.js";
import { generatePrivateKey } from "./key-material.js";
import type { KeyVault } from "./key-vault.js";
import { x509 } from "./x509.js";

/** A certificate this close to expiry is replaced (with a new key) on its next use. */
export const RENEW_BEFORE_EXPIRY_DAYS = 7;

/** Another caller stored the tenant's certificate first; this transaction rolls back. */
class CertificateAlreadyStored extends Error {}

export interface TenantCertificates {
  /** The tenant's signing certificate, issued (or renewed) on demand. */
  get(tenant: string): Promise<SigningCertificate>;
}

const toSigningCertificate = (row: CertificateRow, issuer: IssuingCa): SigningCertificate => ({
  keyId: row.keyId,
  tenant: row.tenant,
  alg: row.alg,
  publicJwk: row.publicJwk,
  createdAt: row.keyCreatedAt,
  x5c: row.x5c,
  trustAnchor: issuer.trustAnchor,
});

/**
 * Per-tenant X.509 signing certificates (P-256) from the issuing CA. A certificate is reissued,
 * with a fresh key, when it is within RENEW_BEFORE_EXPIRY_DAYS of expiry, no longer chains to the
 * current issuing CA (the CA was replaced), or does not carry the tenant's `iss` in its
 * subjectAltName (issued before SANs were added, or the credential issuer's URL changed). Calls for one tenant are coalesced in process; across
 * replicas the row's primary key (first issue) or its key id (renewal) decides which one is kept.
 */
export function createTenantCertificates(options: {
  db: CustodyDb;
  vault: KeyVault;
  issuingCa: IssuingCaSource;
  validityDays: number;
  /** The tenant's `iss` and host, for the leaf's subjectAltName. */
  namesOf: (tenant: string) => IssuerNames;
  now: () => Date;
}): TenantCertificates {
  const { db, vault, issuingCa, validityDays, namesOf, now } = options;
  const inFlight = new Map<string, Promise<SigningCertificate>>();

  const isCurrent = (row: CertificateRow, issuer: IssuingCa) =>
    row.notAfter.getTime() - now().getTime() > RENEW_BEFORE_EXPIRY_DAYS * MILLISECONDS_PER_DAY &&
    sameChain(row.x5c.slice(1), issuer.chain) &&
    carriesIssuerNames(new x509.X509Certificate(Buffer.from(row.x5c[0] ?? "", "base64")), namesOf(row.tenant));

  /** Issues and stores a certificate; undefined when another caller stored one first. */
  async function issue(
    tenant: string,
    issuer: IssuingCa,
    previous: CertificateRow | undefined,
  ): Promise<SigningCertificate | undefined> {
    const privateKey = generatePrivateKey("ES256");
    const leaf = await issueLeafCertificate({
      issuer,
      tenant,
      names: namesOf(tenant),
      publicKey: createPublicKey(privateKey),
      now: now(),
      validityDays,
    });
    const x5c = [base64Der(leaf), ...issuer.chain];
    try {
      return await db.transaction().execute(async (trx) => {
        const held = await vault.hold(trx, tenant, "ES256", privateKey);
        const row = { tenant, key_id: held.keyId, x5c, not_after: leaf.notAfter, created_at: now() };
        const stored = previous
          ? await replaceCertificate(trx, row, previous.keyId)
          : await insertCertificateOnce(trx, row);
        if (!stored) throw new CertificateAlreadyStored();
        return { ...held, x5c, trustAnchor: issuer.trustAnchor };
      });
    } catch (error) {
      if (error instanceof CertificateAlreadyStored) return undefined;
      throw error;
    }
  }

  async function obtain(tenant: string): Promise<SigningCertificate> {
    const issuer = await issuingCa.get();
    const current = await findCertificate(db, tenant);
    if (current && isCurrent(current, issuer)) return toSigningCertificate(current, issuer);
    const issued = await issue(tenant, issuer, current);
    if (issued) return issued;
    const stored = await findCertificate(db, tenant);
    if (!stored) throw new Error("the tenant's signing certificate was not stored");
    return toSigningCertificate(stored, issuer);
  }

  return {
    get(tenant) {
      let pending = inFlight.get(tenant);
      if (!pending) {
        pending = obtain(tenant).finally(() => inFlight.delete(tenant));
        inFlight.set(tenant, pending);
      }
      return pending;
    },
  };
}
