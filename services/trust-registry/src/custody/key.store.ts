import type { Insertable, Kysely, Selectable } from "kysely";
import type { PublicJwk } from "./key-custody.js";
import type { CustodyKeysTable, CustodyTables } from "./tables.js";

export type KeyRow = Selectable<CustodyKeysTable>;
/** A row to insert, with the public JWK as an object (stored as jsonb). */
export type NewKeyRow = Omit<Insertable<CustodyKeysTable>, "public_jwk"> & { public_jwk: PublicJwk };
/** The database, or a transaction on it. */
export type CustodyDb = Kysely<CustodyTables>;

export async function insertKey(db: CustodyDb, row: NewKeyRow): Promise<void> {
  await db
    .insertInto("custody_keys")
    .values({ ...row, public_jwk: JSON.stringify(row.public_jwk) })
    .execute();
}

export async function findKey(db: CustodyDb, keyId: string): Promise<KeyRow | undefined> {
  return db.selectFrom("custody_keys").selectAll().where("key_id", "=", keyId).executeTakeFirst();
}

/** A page of keys not sealed by `kekId` in the current format, in key id order after `afterKeyId`. */
export async function listKeysToRewrap(
  db: CustodyDb,
  kekId: string,
  afterKeyId: string,
  limit: number,
): Promise<KeyRow[]> {
  return db
    .selectFrom("custody_keys")
    .selectAll()
    .where((eb) => eb.or([eb("kek_id", "<>", kekId), eb("sealed_private_key", "is", null)]))
    .where("key_id", ">", afterKeyId)
    .orderBy("key_id")
    .limit(limit)
    .execute();
}

/**
 * Replaces a key's envelope (current format, format-0 columns cleared), only if it still has the
 * one it was read with; whether it did.
 */
export async function updateKeyEnvelope(
  db: CustodyDb,
  row: Pick<KeyRow, "key_id" | "kek_id" | "sealed_private_key">,
  sealed: { kekId: string; sealedPrivateKey: string },
): Promise<boolean> {
  const result = await db
    .updateTable("custody_keys")
    .set({
      kek_id: sealed.kekId,
      sealed_private_key: sealed.sealedPrivateKey,
      wrapped_dek: null,
      iv: null,
      tag: null,
      ciphertext: null,
    })
    .where("key_id", "=", row.key_id)
    .where("kek_id", "=", row.kek_id)
    .where((eb) =>
      row.sealed_private_key === null
        ? eb("sealed_private_key", "is", null)
        : eb("sealed_private_key", "=", row.sealed_private_key),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
