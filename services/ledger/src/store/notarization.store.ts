import type { Kysely } from "kysely";
import type { NotarizationRepository } from "../domain/ports.js";
import type { NotarizationRecord } from "../domain/records.js";
import type { LedgerTables } from "./tables.js";

const toNotarization = (row: LedgerTables["notarizations"]): NotarizationRecord => ({
  objectId: row.object_id,
  digest: row.digest,
  idempotencyKey: row.idempotency_key ?? undefined,
  sequence: row.sequence,
  recordedAt: row.recorded_at,
});

export function createNotarizationStore(db: Kysely<LedgerTables>): NotarizationRepository {
  return {
    async find(objectId) {
      const row = await db.selectFrom("notarizations").selectAll().where("object_id", "=", objectId).executeTakeFirst();
      return row && toNotarization(row);
    },

    async findByIdempotencyKey(key) {
      const row = await db
        .selectFrom("notarizations")
        .selectAll()
        .where("idempotency_key", "=", key)
        .executeTakeFirst();
      return row && toNotarization(row);
    },

    async insert(record) {
      await db
        .insertInto("notarizations")
        .values({
          object_id: record.objectId,
          digest: record.digest,
          idempotency_key: record.idempotencyKey ?? null,
          sequence: record.sequence,
          recorded_at: record.recordedAt,
        })
        .execute();
    },
  };
}
