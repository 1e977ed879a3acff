import type { Insertable } from "kysely";
import type { CustodyDb } from "./key.store.js";
import type { KeyAlgorithm, PublicJwk } from "./key-custody.js";
import type { CustodyCertificatesTable } from "./tables.js";

/**
 * Which table of platform-issued certificates: the issuer's signing certificates or the verifier's.
 * Both have the same columns (CustodyCertificatesTable); statements name the table as the first,
 * which is sound because the shapes are identical.
 */
export type CertificateTable = "custody_certificates" | "custody_verifier_certificates";
const asTable = (table: CertificateTable) => table as "custody_certificates";

/** A tenant's certificate row joined with its key's public part. */
export interface CertificateRow {
  tenant: string;
  keyId: string;
  x5c: string[];
  notAfter: Date;
  alg: KeyAlgorithm;
  publicJwk: PublicJwk;
  keyCreatedAt: Date;
}

type NewCertificateRow = Omit<Insertable<CustodyCertificatesTable>, "x5c" | "created_at"> & {
  x5c: string[];
  created_at: Date;
};

export async function findCertificate(
  db: CustodyDb,
  tenant: string,
  table: CertificateTable = "custody_certificates",
): Promise<CertificateRow | undefined> {
  const row = await db
    .selectFrom(`${asTable(table)} as c`)
    .innerJoin("custody_keys as k", "k.key_id", "c.key_id")
    .select(["c.tenant", "c.key_id", "c.x5c", "c.not_after", "k.alg", "k.public_jwk", "k.created_at"])
    .where("c.tenant", "=", tenant)
    .executeTakeFirst();
  return (
    row && {
      tenant: row.tenant,
      keyId: row.key_id,
      x5c: row.x5c,
      notAfter: row.not_after,
      alg: row.alg,
      publicJwk: row.public_jwk,
      keyCreatedAt: row.created_at,
    }
  );
}

/** The chain of a tenant's key when it is the tenant's current certified key. */
export async function findX5cOfKey(db: CustodyDb, tenant: string, keyId: string): Promise<string[] | undefined> {
  const row = await db
    .selectFrom("custody_certificates")
    .select("x5c")
    .where("tenant", "=", tenant)
    .where("key_id", "=", keyId)
    .executeTakeFirst();
  return row?.x5c;
}

/** Stores a tenant's first certificate unless one exists; whether this call stored it. */
export async function insertCertificateOnce(
  db: CustodyDb,
  row: NewCertificateRow,
  table: CertificateTable = "custody_certificates",
): Promise<boolean> {
  const inserted = await db
    .insertInto(asTable(table))
    .values({ ...row, x5c: JSON.stringify(row.x5c) })
    .onConflict((conflict) => conflict.column("tenant").doNothing())
    .returning("tenant")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Replaces a tenant's certificate, only if it still certifies `previousKeyId`; whether it did. */
export async function replaceCertificate(
  db: CustodyDb,
  row: NewCertificateRow,
  previousKeyId: string,
  table: CertificateTable = "custody_certificates",
): Promise<boolean> {
  const result = await db
    .updateTable(asTable(table))
    .set({ key_id: row.key_id, x5c: JSON.stringify(row.x5c), not_after: row.not_after, created_at: row.created_at })
    .where("tenant", "=", row.tenant)
    .where("key_id", "=", previousKeyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
