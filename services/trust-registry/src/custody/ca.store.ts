import type { Insertable, Selectable } from "kysely";
import type { CustodyDb } from "./key.store.js";
import type { CustodyCaTable } from "./tables.js";

export type CaRow = Selectable<CustodyCaTable>;

export async function findCaRows(db: CustodyDb): Promise<{ root?: CaRow; issuing?: CaRow }> {
  const rows = await db.selectFrom("custody_ca").selectAll().execute();
  return { root: rows.find((row) => row.id === "root"), issuing: rows.find((row) => row.id === "issuing") };
}

/** Inserts a CA row unless one with its id exists; whether this call inserted it. */
export async function insertCaRowOnce(db: CustodyDb, row: Insertable<CustodyCaTable>): Promise<boolean> {
  const inserted = await db
    .insertInto("custody_ca")
    .values(row)
    .onConflict((conflict) => conflict.column("id").doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}
