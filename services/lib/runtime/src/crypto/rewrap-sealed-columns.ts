import { rewrapSealedColumn, type SealedColumn } from "@attesto/store";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { createEnvelopeSealer, type KeyEncryptionKey } from "./envelope.js";

/**
 * KEK rotation at start-up: every envelope in `columns` not under the current key-encryption key
 * (the first of KEY_ENCRYPTION_KEYS) is rewrapped under it, so that once every service has started
 * with the new key first, the old one can be dropped. Rows that do not open are logged, not fatal.
 */
export async function rewrapSealedColumns(
  db: Kysely<unknown>,
  keys: KeyEncryptionKey[] | undefined,
  columns: readonly SealedColumn[],
  log: Pick<Logger, "info" | "warn">,
): Promise<void> {
  if (!keys?.length || columns.length === 0) return;
  const sealer = createEnvelopeSealer(keys);
  for (const column of columns) {
    const { rewrapped, failed } = await rewrapSealedColumn(db, sealer, column);
    const where = { table: column.table, column: column.column, kek: sealer.currentKeyId };
    if (rewrapped > 0) log.info({ ...where, rewrapped }, "rewrapped envelopes under the current key-encryption key");
    if (failed > 0) {
      log.warn({ ...where, failed }, "envelopes that do not open under KEY_ENCRYPTION_KEYS were left as they are");
    }
  }
}
