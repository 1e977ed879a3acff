import { randomUUID } from "node:crypto";
import { type StatusListBits, statusListByteLength } from "@attesto/protocol";
import { type Kysely, type QueryCreator, type RawBuilder, sql } from "kysely";
import type { AllocateStatusEntriesInput, StatusListRepository } from "../domain/ports.js";
import type { StatusEntry } from "../domain/status-lists.js";
import type { IssuerTables } from "./tables.js";

/** The CTEs a claim of entries is made of (`list`, `drawn`, `claimed`), also run inside larger statements. */
interface ListCte {
  list: { id: string; size: number };
}
interface DrawnCte {
  drawn: { list_id: string; idx: number; ord: number };
}

/** `list`: the signer's oldest open list (one row, or none). */
export const openListOf = <DB extends IssuerTables>(creator: QueryCreator<DB>, tenant: string, signer: string) =>
  (creator as unknown as QueryCreator<IssuerTables>)
    .selectFrom("status_lists")
    .select(["id", "size"])
    .where("tenant", "=", tenant)
    .where("signer", "=", signer)
    .where("closed_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .limit(1);

/**
 * `drawn`: each draw modulo the list's size, in draw order, the first of duplicates kept. `gate`:
 * a condition the claim is made under (another part of the same statement).
 */
export const drawnIndexesOf = <DB extends IssuerTables & ListCte>(
  creator: QueryCreator<DB>,
  draws: number[],
  gate?: RawBuilder<boolean>,
) => {
  const query = (creator as unknown as QueryCreator<IssuerTables & ListCte>)
    .selectFrom(["list", sql`unnest(${draws}::int[]) WITH ORDINALITY`.as(sql`draw(value, ord)`)])
    .distinctOn(sql`draw.value % list.size`)
    .select(["list.id as list_id", sql<number>`draw.value % list.size`.as("idx"), sql<number>`draw.ord`.as("ord")])
    .orderBy(sql`draw.value % list.size`)
    .orderBy(sql`draw.ord`);
  return gate ? query.where(gate) : query;
};

/** `claimed`: the first `need` drawn indexes that are free, inserted; a concurrent claim of one skips it. */
export const claimedEntriesOf = <DB extends IssuerTables & ListCte & DrawnCte>(
  creator: QueryCreator<DB>,
  need: number,
) => {
  const qc = creator as unknown as QueryCreator<IssuerTables & ListCte & DrawnCte>;
  return qc
    .insertInto("status_list_entries")
    .columns(["list_id", "idx"])
    .expression(
      qc
        .selectFrom("drawn")
        .select(["drawn.list_id", "drawn.idx"])
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("status_list_entries as taken")
                .select("taken.idx")
                .whereRef("taken.list_id", "=", "drawn.list_id")
                .whereRef("taken.idx", "=", "drawn.idx"),
            ),
          ),
        )
        .orderBy("drawn.ord")
        .limit(need),
    )
    .onConflict((conflict) => conflict.doNothing())
    .returning(["list_id", "idx"]);
};

/** Draws beyond the entries needed in the first claim: enough while a list is up to ~90 % full. */
const FIRST_SURPLUS = 32;
/** Each claim that came up short draws this many times more... */
const SURPLUS_GROWTH = 16;
/** ...up to this; past it the list is nearly full and its free indexes are listed instead. */
const MAX_SURPLUS = 8192;

/**
 * Status lists on PostgreSQL. An entry is claimed by inserting its (list, index) row: issuances
 * never lock or rewrite the list's row, so concurrent ones do not queue behind each other. Status
 * changes (credential.store.ts) rewrite one byte of `statuses` in a single UPDATE, so every read
 * of the row is a whole list, before or after.
 */
export function createStatusListStore(database: Kysely<unknown>): StatusListRepository {
  const db = database as Kysely<IssuerTables>;

  const claimDrawn = (tenant: string, signer: string, need: number, draws: number[]) =>
    db
      .with("list", (qc) => openListOf(qc, tenant, signer))
      .with("drawn", (qc) => drawnIndexesOf(qc, draws))
      .with("claimed", (qc) => claimedEntriesOf(qc, need))
      .selectFrom("list")
      .leftJoin("claimed", (join) => join.onTrue())
      .select(["list.id", "list.size", "claimed.idx"])
      .execute();

  /** A nearly full list: its free indexes, listed. */
  const freeIndexes = async (listId: string, size: number) => {
    const rows = await db
      .selectFrom(sql`generate_series(0, ${size - 1})`.as(sql`slot(idx)`))
      .select(sql<number>`slot.idx`.as("idx"))
      .where(({ not, exists }) =>
        not(
          exists(
            db
              .selectFrom("status_list_entries as taken")
              .select("taken.idx")
              .where("taken.list_id", "=", listId)
              .where("taken.idx", "=", sql<number>`slot.idx`),
          ),
        ),
      )
      .execute();
    return rows.map((row) => row.idx);
  };

  const claimListed = async (listId: string, indexes: number[]) => {
    if (indexes.length === 0) return [];
    const rows = await db
      .insertInto("status_list_entries")
      .values(indexes.map((idx) => ({ list_id: listId, idx })))
      .onConflict((conflict) => conflict.doNothing())
      .returning("idx")
      .execute();
    return rows.map((row) => row.idx);
  };

  const openList = async ({ tenant, signer, size, bits, now }: AllocateStatusEntriesInput) => {
    await db
      .insertInto("status_lists")
      .values({
        id: randomUUID(),
        tenant,
        signer: signer.key,
        signing_offer_id: signer.signingOfferId ?? null,
        size,
        bits,
        statuses: Buffer.alloc(statusListByteLength(size, bits as StatusListBits)),
        version: 1,
        created_at: now,
        updated_at: now,
        closed_at: null,
      })
      .execute();
  };

  const closeList = async (listId: string, now: Date) => {
    await db
      .updateTable("status_lists")
      .set({ closed_at: now, updated_at: now })
      .where("id", "=", listId)
      .where("closed_at", "is", null)
      .execute();
  };

  return {
    async allocate(input, indexDraws) {
      const entries: StatusEntry[] = [];
      let surplus = FIRST_SURPLUS;
      while (entries.length < input.count) {
        const need = input.count - entries.length;
        const rows = await claimDrawn(input.tenant, input.signer.key, need, indexDraws.draws(need + surplus));
        const list = rows[0];
        if (!list) {
          await openList(input);
          continue;
        }
        for (const row of rows) if (row.idx !== null) entries.push({ listId: list.id, idx: row.idx });
        if (entries.length === input.count) break;
        if (surplus < MAX_SURPLUS) {
          surplus *= SURPLUS_GROWTH;
          continue;
        }
        const free = await freeIndexes(list.id, list.size);
        if (free.length === 0) {
          await closeList(list.id, input.now);
          surplus = FIRST_SURPLUS;
          continue;
        }
        const claimed = await claimListed(list.id, indexDraws.among(free, input.count - entries.length));
        for (const idx of claimed) entries.push({ listId: list.id, idx });
      }
      return entries;
    },

    async findVersion(tenant, listId) {
      const row = await db
        .selectFrom("status_lists")
        .select("version")
        .where("id", "=", listId)
        .where("tenant", "=", tenant)
        .executeTakeFirst();
      return row === undefined ? undefined : String(row.version);
    },

    async find(tenant, listId) {
      const row = await db
        .selectFrom("status_lists")
        .select(["id", "tenant", "signer", "signing_offer_id", "bits", "size", "statuses", "version"])
        .where("id", "=", listId)
        .where("tenant", "=", tenant)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        tenant: row.tenant,
        signer: { key: row.signer, ...(row.signing_offer_id === null ? {} : { signingOfferId: row.signing_offer_id }) },
        bits: row.bits as StatusListBits,
        size: row.size,
        statuses: new Uint8Array(row.statuses),
        version: String(row.version),
      };
    },
  };
}
