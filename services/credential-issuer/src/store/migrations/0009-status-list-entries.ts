import { type Kysely, type Migration, sql } from "kysely";

/**
 * Status list entries as rows (this service's README, "Status lists"): allocation no longer
 * rewrites the list's row (a 16 KiB allocation bitmap, locked by every issuance of the tenant).
 * Frozen: later changes go in new migrations.
 *
 * - `status_list_entries`: one row per index handed out, primary key (`list_id`, `idx`): an index
 *   is claimed by inserting it, so two issuances can never get the same one, and concurrent
 *   issuances touch different rows. Filled from each list's `allocated` bitmap (bit `i` is
 *   `get_bit(allocated, i)`: least significant bit of each byte first, as it was written). No
 *   foreign key: its check would lock the list's row (`FOR KEY SHARE`) on every insert.
 * - `status_lists.closed_at`: when the list was found full; open lists are those without it.
 *   `allocated` and `allocated_count` go.
 */
interface MigrationTables {
  status_lists: { id: string; size: number; allocated: Buffer; allocated_count: number; closed_at: Date | null };
  status_list_entries: { list_id: string; idx: number };
}

export const createStatusListEntries: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("status_list_entries")
      .addColumn("list_id", "uuid", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull().check(sql`idx >= 0`))
      .addPrimaryKeyConstraint("status_list_entries_pkey", ["list_id", "idx"])
      .execute();
    // Built with kysely, not raw SQL: only its table references carry the service's schema.
    const tables = db as Kysely<MigrationTables>;
    await tables
      .insertInto("status_list_entries")
      .columns(["list_id", "idx"])
      .expression(
        tables
          .selectFrom(["status_lists as list", sql`generate_series(0, list.size - 1)`.as(sql`bit(idx)`)])
          .select(["list.id", sql<number>`bit.idx`.as("idx")])
          .where(sql<number>`get_bit(list.allocated, bit.idx)`, "=", 1),
      )
      .execute();
    await db.schema.alterTable("status_lists").addColumn("closed_at", "timestamptz").execute();
    await tables
      .updateTable("status_lists")
      .set({ closed_at: sql`updated_at` })
      .where(sql<boolean>`allocated_count >= size`)
      .execute();
    await db.schema.dropIndex("status_lists_open").execute();
    await db.schema.alterTable("status_lists").dropConstraint("status_lists_allocated_count").execute();
    await db.schema.alterTable("status_lists").dropColumn("allocated").dropColumn("allocated_count").execute();
    await db.schema
      .createIndex("status_lists_open")
      .on("status_lists")
      .columns(["tenant", "signer", "created_at"])
      .where(sql.ref("closed_at"), "is", null)
      .execute();
  },
};
