import type { Kysely, Selectable } from "kysely";
import { type HolderDid, LEDGER_DID_METHOD } from "../domain/model.js";
import type { DidRepository } from "../domain/ports.js";
import type { HolderDidsTable, HolderTables } from "./tables.js";

function toHolderDid(row: Selectable<HolderDidsTable>): HolderDid {
  return {
    userUuid: row.user_uuid,
    did: row.did,
    method: LEDGER_DID_METHOD,
    keyId: row.key_id,
    publicJwk: { kty: "OKP", crv: "Ed25519", x: row.public_jwk.x },
    source: row.source,
    status: row.status,
    createdAt: row.created_at,
  };
}

/** Holders' DIDs on PostgreSQL. */
export function createDidStore(database: Kysely<unknown>): DidRepository {
  const db = database as Kysely<HolderTables>;
  const find = async (userUuid: string, did: string) => {
    const row = await db
      .selectFrom("holder_dids")
      .selectAll()
      .where("user_uuid", "=", userUuid)
      .where("did", "=", did)
      .executeTakeFirst();
    return row ? toHolderDid(row) : undefined;
  };
  return {
    async insert(did) {
      // A DID the holder already has (a repeated import) stays as it was.
      await db
        .insertInto("holder_dids")
        .values({
          user_uuid: did.userUuid,
          did: did.did,
          method: did.method,
          key_id: did.keyId,
          public_jwk: JSON.stringify(did.publicJwk),
          source: did.source,
          status: did.status,
          created_at: did.createdAt,
        })
        .onConflict((oc) => oc.columns(["user_uuid", "did"]).doNothing())
        .execute();
      return (await find(did.userUuid, did.did))!;
    },
    find,
    async list(userUuid) {
      const rows = await db
        .selectFrom("holder_dids")
        .selectAll()
        .where("user_uuid", "=", userUuid)
        .orderBy("created_at")
        .orderBy("did")
        .execute();
      return rows.map(toHolderDid);
    },
    async delete(userUuid, did) {
      const result = await db
        .deleteFrom("holder_dids")
        .where("user_uuid", "=", userUuid)
        .where("did", "=", did)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
