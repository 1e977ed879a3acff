import { type CompiledOnce, compileOnce } from "@attesto/store";
import type { Kysely } from "kysely";
import type { DidRepository } from "../domain/ports.js";
import type { DidRecord } from "../domain/records.js";
import { jsonb } from "./jsonb.js";
import type { LedgerTables } from "./tables.js";

const toDidRecord = (row: LedgerTables["dids"]): DidRecord => ({
  did: row.did,
  keyId: row.key_id,
  publicJwk: row.public_jwk,
  document: row.document,
  deactivated: row.deactivated,
  createdSequence: row.created_sequence,
  deactivatedSequence: row.deactivated_sequence ?? undefined,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const findQuery = (db: Kysely<LedgerTables>, args: { did: string }) =>
  db.selectFrom("dids").selectAll().where("did", "=", args.did);

export function createDidStore(db: Kysely<LedgerTables>): DidRepository {
  // Every uncached did:ledger resolution reads its row: compiled once, at the first read (the
  // store is also made per append transaction, where most never read).
  let find: CompiledOnce<{ did: string }, ReturnType<typeof findQuery>> | undefined;
  return {
    async find(did) {
      find ??= compileOnce(db, { did: "string" }, findQuery);
      const row = await find.takeFirst({ did });
      return row && toDidRecord(row);
    },

    async insert(record) {
      await db
        .insertInto("dids")
        .values({
          did: record.did,
          key_id: record.keyId,
          public_jwk: jsonb(record.publicJwk),
          document: jsonb(record.document),
          deactivated: record.deactivated,
          created_sequence: record.createdSequence,
          deactivated_sequence: record.deactivatedSequence ?? null,
          created_at: record.createdAt,
          updated_at: record.updatedAt,
        })
        .execute();
    },

    async markDeactivated(did, { sequence, at }) {
      await db
        .updateTable("dids")
        .set({ deactivated: true, deactivated_sequence: sequence, updated_at: at })
        .where("did", "=", did)
        .execute();
    },
  };
}
