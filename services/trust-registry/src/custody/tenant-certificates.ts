import { createPublicKey } from "node:crypto";
import {
  type CertificateRow,
  type CertificateTable,
  findCertificate,
  insertCertificateOnce,
  replaceCertificate,
} from "./certificate.store.js";
import { base64Der, MILLISECONDS_PER_DAY, sameChain } from "./certificate-tools.js";
import { issueLeafCertificate } from "./issue-leaf-certificate.js";
import type { LeafNames } from "./issuer-names.js";
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
  /** The tenant's certificate for `names`, issued (or renewed) on demand. */
  get(tenant: string, names: LeafNames): Promise<SigningCertificate>;
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
 * Per-tenant X.509 certificates (P-256) from the issuing CA, one per tenant in `table`: the
 * issuer's signing certificates or the verifier's. A certificate is reissued,
 * with a fresh key, when it is within RENEW_BEFORE_EXPIRY_DAYS of expiry, no longer chains to the
 * current issuing CA (the CA was replaced), or does not carry the names asked for in its
 * subjectAltName (issued before SANs were added, or the issuer's URL or verifier's host changed). Calls for one tenant are coalesced in process; across
 * replicas the row's primary key (first issue) or its key id (renewal) decides which one is kept.
 */
export function createTenantCertificates(options: {
  db: CustodyDb;
  vault: KeyVault;
  issuingCa: IssuingCaSource;
  validityDays: number;
  table: CertificateTable;
  now: () => Date;
}): TenantCertificates {
  const { db, vault, issuingCa, validityDays, table, now } = options;
  const inFlight = new Map<string, Promise<SigningCertificate>>();

  const isCurrent = (row: CertificateRow, issuer: IssuingCa, names: LeafNames) =>
    row.notAfter.getTime() - now().getTime() > RENEW_BEFORE_EXPIRY_DAYS * MILLISECONDS_PER_DAY &&
    sameChain(row.x5c.slice(1), issuer.chain) &&
    names.carriedBy(new x509.X509Certificate(Buffer.from(row.x5c[0] ?? "", "base64")));

  /** Issues and stores a certificate; undefined when another caller stored one first. */
  async function issue(
    tenant: string,
    names: LeafNames,
    issuer: IssuingCa,
    previous: CertificateRow | undefined,
  ): Promise<SigningCertificate | undefined> {
    const privateKey = generatePrivateKey("ES256");
    const leaf = await issueLeafCertificate({
      issuer,
      tenant,
      names,
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
          ? await replaceCertificate(trx, row, previous.keyId, table)
          : await insertCertificateOnce(trx, row, table);
        if (!stored) throw new CertificateAlreadyStored();
        return { ...held, x5c, trustAnchor: issuer.trustAnchor };
      });
    } catch (error) {
      if (error instanceof CertificateAlreadyStored) return undefined;
      throw error;
    }
  }

  async function obtain(tenant: string, names: LeafNames): Promise<SigningCertificate> {
    const issuer = await issuingCa.get();
    const current = await findCertificate(db, tenant, table);
    if (current && isCurrent(current, issuer, names)) return toSigningCertificate(current, issuer);
    const issued = await issue(tenant, names, issuer, current);
    if (issued) return issued;
    const stored = await findCertificate(db, tenant, table);
    if (!stored) throw new Error("the tenant's signing certificate was not stored");
    return toSigningCertificate(stored, issuer);
  }

  return {
    get(tenant, names) {
      const key = `${tenant}\n${names.key}`;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = obtain(tenant, names).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
  };
}
