import type { Insertable, Kysely, Selectable } from "kysely";
import type { Envelope } from "./envelope.js";
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

/** A page of keys whose DEK is not wrapped by `kekId`, in key id order after `afterKeyId`. */
export async function listKeysNotWrappedBy(
  db: CustodyDb,
  kekId: string,
  afterKeyId: string,
  limit: number,
): Promise<KeyRow[]> {
  return db
    .selectFrom("custody_keys")
    .selectAll()
    .where("kek_id", "<>", kekId)
    .where("key_id", ">", afterKeyId)
    .orderBy("key_id")
    .limit(limit)
    .execute();
}

/** Replaces a key's DEK wrapping, only if it is still wrapped by `fromKekId`; whether it was. */
export async function updateKeyWrapping(
  db: CustodyDb,
  keyId: string,
  fromKekId: string,
  envelope: Pick<Envelope, "kekId" | "wrappedDek">,
): Promise<boolean> {
  const result = await db
    .updateTable("custody_keys")
    .set({ kek_id: envelope.kekId, wrapped_dek: envelope.wrappedDek })
    .where("key_id", "=", keyId)
    .where("kek_id", "=", fromKekId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
