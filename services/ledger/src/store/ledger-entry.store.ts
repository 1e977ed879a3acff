import type { Kysely } from "kysely";
import type { LedgerEntry } from "../domain/ledger-entry.js";
import type { LedgerEntryRepository } from "../domain/ports.js";
import { jsonb } from "./jsonb.js";
import type { LedgerTables } from "./tables.js";

const toEntry = (row: LedgerTables["ledger_entries"]): LedgerEntry => ({
  sequence: row.sequence,
  kind: row.kind,
  payload: row.payload,
  createdAt: row.created_at,
  leafHash: row.leaf_hash,
  prevHash: row.prev_hash,
  entryHash: row.entry_hash,
});

/** The log on PostgreSQL. Rows are only ever inserted. */
export function createLedgerEntryStore(db: Kysely<LedgerTables>): LedgerEntryRepository {
  return {
    async head() {
      const row = await db
        .selectFrom("ledger_entries")
        .select(["sequence", "entry_hash"])
        .orderBy("sequence", "desc")
        .limit(1)
        .executeTakeFirst();
      return row && { sequence: row.sequence, entryHash: row.entry_hash };
    },

    async insert(entry) {
      await db
        .insertInto("ledger_entries")
        .values({
          sequence: entry.sequence,
          kind: entry.kind,
          payload: jsonb(entry.payload),
          leaf_hash: entry.leafHash,
          prev_hash: entry.prevHash,
          entry_hash: entry.entryHash,
          created_at: entry.createdAt,
        })
        .execute();
    },

    async size() {
      const row = await db
        .selectFrom("ledger_entries")
        .select((eb) => eb.fn.max("sequence").as("last"))
        .executeTakeFirstOrThrow();
      return row.last === null ? 0 : Number(row.last) + 1;
    },

    async list({ from, limit }) {
      const rows = await db
        .selectFrom("ledger_entries")
        .selectAll()
        .where("sequence", ">=", from)
        .orderBy("sequence")
        .limit(limit)
        .execute();
      return rows.map(toEntry);
    },

    async leafHashes(treeSize) {
      const rows = await db
        .selectFrom("ledger_entries")
        .select("leaf_hash")
        .where("sequence", "<", treeSize)
        .orderBy("sequence")
        .execute();
      return rows.map((row) => row.leaf_hash);
    },
  };
}
