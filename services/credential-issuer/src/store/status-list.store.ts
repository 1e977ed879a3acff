import { randomUUID } from "node:crypto";
import { type StatusListBits, statusListByteLength } from "@attesto/protocol";
import type { Kysely } from "kysely";
import type { StatusEntry, StatusListRepository } from "../domain/status-lists.js";
import type { IssuerTables } from "./tables.js";

/** Row of `status_lists` (migration 0006). */
export interface StatusListsTable {
  id: string;
  tenant: string;
  signer: string;
  signing_offer_id: string | null;
  size: number;
  bits: number;
  statuses: Buffer;
  allocated: Buffer;
  allocated_count: number;
  /** bigint: pg returns it as a string. */
  version: string | number;
  created_at: Date;
  updated_at: Date;
}

/**
 * Status lists on PostgreSQL. Allocation locks the open list's row (`FOR UPDATE`), so concurrent
 * issuances never draw the same index; status changes (credential.store.ts) rewrite one byte of
 * `statuses` in a single UPDATE, so every read of the row is a whole list, before or after.
 */
export function createStatusListStore(database: Kysely<unknown>): StatusListRepository {
  const db = database as Kysely<IssuerTables>;
  return {
    async allocate({ tenant, signer, count, size, bits, now }, pick) {
      return db.transaction().execute(async (trx) => {
        const entries: StatusEntry[] = [];
        while (entries.length < count) {
          let list = await trx
            .selectFrom("status_lists")
            .select(["id", "size", "allocated", "allocated_count"])
            .where("tenant", "=", tenant)
            .where("signer", "=", signer.key)
            .whereRef("allocated_count", "<", "size")
            .orderBy("created_at")
            .orderBy("id")
            .limit(1)
            .forUpdate()
            .executeTakeFirst();
          if (!list) {
            list = await trx
              .insertInto("status_lists")
              .values({
                id: randomUUID(),
                tenant,
                signer: signer.key,
                signing_offer_id: signer.signingOfferId ?? null,
                size,
                bits,
                statuses: Buffer.alloc(statusListByteLength(size, bits as StatusListBits)),
                allocated: Buffer.alloc(size / 8),
                allocated_count: 0,
                version: 1,
                created_at: now,
                updated_at: now,
              })
              .returning(["id", "size", "allocated", "allocated_count"])
              .executeTakeFirstOrThrow();
          }
          const allocated = new Uint8Array(list.allocated);
          const take = Math.min(count - entries.length, list.size - list.allocated_count);
          const indexes = pick(allocated, list.size, list.allocated_count, take);
          await trx
            .updateTable("status_lists")
            .set({ allocated: Buffer.from(allocated), allocated_count: list.allocated_count + take, updated_at: now })
            .where("id", "=", list.id)
            .execute();
          for (const idx of indexes) entries.push({ listId: list.id, idx });
        }
        return entries;
      });
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
