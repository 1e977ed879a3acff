import { gone } from "@attesto/runtime/errors";
import { sql } from "kysely";
import { sameChain } from "./certificate-tools.js";
import {
  deleteImportedCertificate,
  findImportedCertificate,
  type ImportedCertificateRow,
  type ImportedCertificateTable,
  upsertImportedCertificate,
} from "./imported-certificate.store.js";
import { assertLeafNamesIssuer, checkImportedChain } from "./imported-chain.js";
import type { IssuerNames } from "./issuer-names.js";
import type { CustodyDb } from "./key.store.js";
import type { ImportedSigningCertificate, SigningCertificate } from "./key-custody.js";
import type { KeyVault } from "./key-vault.js";
import { x509 } from "./x509.js";

export interface ImportedCertificates {
  /** Checks and holds the tenant's chain and key; the same chain again changes nothing. */
  import(tenant: string, chainDer: readonly Uint8Array[], privateKeyPem: string): Promise<ImportedSigningCertificate>;
  /** Drops the tenant's imported certificate; whether there was one. */
  clear(tenant: string): Promise<boolean>;
  /**
   * The tenant's imported certificate, if any; an expired one, or one whose leaf does not name the
   * tenant's `iss` (imported before that was checked, or the issuer URL changed), is refused
   * (FAILED_PRECONDITION).
   */
  find(tenant: string): Promise<SigningCertificate | undefined>;
}

const toSigningCertificate = (row: ImportedCertificateRow): SigningCertificate => ({
  keyId: row.keyId,
  tenant: row.tenant,
  alg: row.alg,
  publicJwk: row.publicJwk,
  createdAt: row.keyCreatedAt,
  x5c: row.x5c,
  trustAnchor: row.trustAnchor,
});

const describe = (row: ImportedCertificateRow, changed: boolean): ImportedSigningCertificate => ({
  ...toSigningCertificate(row),
  fingerprint: row.fingerprint,
  notAfter: row.notAfter,
  changed,
});

/**
 * Tenants' own X.509 signing certificates. The private key is held like every custody key (sealed
 * in an envelope under the current KEK); the row names it with the chain. Imports for one tenant
 * are serialized by a transaction-scoped advisory lock, so concurrent identical imports hold the
 * key once. A replaced or cleared certificate's key stays in custody (signers that cached its id
 * keep working until they refresh) but is no longer returned by GetSigningCertificate.
 */
export function createImportedCertificates(options: {
  db: CustodyDb;
  vault: KeyVault;
  table: ImportedCertificateTable;
  /** The tenant's `iss` the leaf must name (issuer chains); absent for verifier chains, which name no issuer. */
  namesOf?: (tenant: string) => IssuerNames;
  now: () => Date;
}): ImportedCertificates {
  const { db, vault, table, namesOf, now } = options;

  return {
    async import(tenant, chainDer, privateKeyPem) {
      const checked = checkImportedChain(chainDer, privateKeyPem, now(), namesOf?.(tenant));
      return db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`custody-import:${tenant}`}))`.execute(trx);
        const current = await findImportedCertificate(trx, tenant, table);
        if (current && sameChain(current.chain, checked.chain)) return describe(current, false);
        const held = await vault.hold(trx, tenant, "ES256", checked.privateKey);
        const row = {
          tenant,
          keyId: held.keyId,
          chain: checked.chain,
          x5c: checked.x5c,
          trustAnchor: checked.trustAnchor,
          fingerprint: checked.fingerprint,
          notAfter: checked.notAfter,
        };
        await upsertImportedCertificate(trx, row, table);
        return describe({ ...row, alg: held.alg, publicJwk: held.publicJwk, keyCreatedAt: held.createdAt }, true);
      });
    },

    clear: (tenant) => deleteImportedCertificate(db, tenant, table),

    async find(tenant) {
      const row = await findImportedCertificate(db, tenant, table);
      if (!row) return undefined;
      if (row.notAfter.getTime() <= now().getTime()) {
        throw gone(
          `the tenant's imported signing certificate expired at ${row.notAfter.toISOString()}: import a new one or clear it`,
        );
      }
      if (namesOf) {
        assertLeafNamesIssuer(new x509.X509Certificate(Buffer.from(row.x5c[0] ?? "", "base64")), namesOf(tenant), 410);
      }
      return toSigningCertificate(row);
    },
  };
}
