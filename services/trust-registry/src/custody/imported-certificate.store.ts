import type { CustodyDb } from "./key.store.js";
import type { KeyAlgorithm, PublicJwk } from "./key-custody.js";

/**
 * Which table of imported chains: the issuer's signing certificates or the verifier's (identical
 * columns, CustodyImportedCertificatesTable; statements name the table as the first).
 */
export type ImportedCertificateTable = "custody_imported_certificates" | "custody_imported_verifier_certificates";
const asTable = (table: ImportedCertificateTable) => table as "custody_imported_certificates";

export interface NewImportedCertificate {
  tenant: string;
  keyId: string;
  chain: string[];
  x5c: string[];
  trustAnchor: string;
  fingerprint: string;
  notAfter: Date;
}

/** A tenant's imported certificate joined with its key's public part. */
export interface ImportedCertificateRow extends NewImportedCertificate {
  alg: KeyAlgorithm;
  publicJwk: PublicJwk;
  keyCreatedAt: Date;
}

export async function findImportedCertificate(
  db: CustodyDb,
  tenant: string,
  table: ImportedCertificateTable = "custody_imported_certificates",
): Promise<ImportedCertificateRow | undefined> {
  const row = await db
    .selectFrom(`${asTable(table)} as c`)
    .innerJoin("custody_keys as k", "k.key_id", "c.key_id")
    .select([
      "c.tenant",
      "c.key_id",
      "c.chain",
      "c.x5c",
      "c.trust_anchor",
      "c.fingerprint",
      "c.not_after",
      "k.alg",
      "k.public_jwk",
      "k.created_at",
    ])
    .where("c.tenant", "=", tenant)
    .executeTakeFirst();
  return (
    row && {
      tenant: row.tenant,
      keyId: row.key_id,
      chain: row.chain,
      x5c: row.x5c,
      trustAnchor: row.trust_anchor,
      fingerprint: row.fingerprint,
      notAfter: row.not_after,
      alg: row.alg,
      publicJwk: row.public_jwk,
      keyCreatedAt: row.created_at,
    }
  );
}

/** Stores (or replaces) the tenant's imported certificate. */
export async function upsertImportedCertificate(
  db: CustodyDb,
  row: NewImportedCertificate,
  table: ImportedCertificateTable = "custody_imported_certificates",
): Promise<void> {
  const values = {
    key_id: row.keyId,
    chain: JSON.stringify(row.chain),
    x5c: JSON.stringify(row.x5c),
    trust_anchor: row.trustAnchor,
    fingerprint: row.fingerprint,
    not_after: row.notAfter,
  };
  await db
    .insertInto(asTable(table))
    .values({ tenant: row.tenant, ...values })
    .onConflict((conflict) => conflict.column("tenant").doUpdateSet(values))
    .execute();
}

/** Drops the tenant's imported certificate; whether there was one. */
export async function deleteImportedCertificate(
  db: CustodyDb,
  tenant: string,
  table: ImportedCertificateTable = "custody_imported_certificates",
): Promise<boolean> {
  const result = await db.deleteFrom(asTable(table)).where("tenant", "=", tenant).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The chain of a tenant's key when it is the tenant's imported certificate key. */
export async function findImportedX5cOfKey(
  db: CustodyDb,
  tenant: string,
  keyId: string,
): Promise<string[] | undefined> {
  const row = await db
    .selectFrom("custody_imported_certificates")
    .select("x5c")
    .where("tenant", "=", tenant)
    .where("key_id", "=", keyId)
    .executeTakeFirst();
  return row?.x5c;
}

/** Every imported chain's self-signed root (standard base64 DER), by tenant; chains without one are left out. */
export async function listImportedTrustAnchors(db: CustodyDb): Promise<{ tenant: string; trustAnchor: string }[]> {
  const rows = await db
    .selectFrom("custody_imported_certificates")
    .select(["tenant", "trust_anchor"])
    .where("trust_anchor", "!=", "")
    .orderBy("tenant")
    .execute();
  return rows.map((row) => ({ tenant: row.tenant, trustAnchor: row.trust_anchor }));
}
