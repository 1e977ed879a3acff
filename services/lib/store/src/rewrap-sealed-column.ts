import { type Kysely, sql } from "kysely";

/** A text column holding envelopes (`v1.<kek id>.…`, see @attesto/runtime's createEnvelopeSealer). */
export interface SealedColumn {
  table: string;
  /** The row's key column (compared as text). */
  key: string;
  column: string;
  /** The envelope's context (its owner) for a row key, as the service seals it. */
  context(key: string): string;
}

/** What rewrapping needs of an envelope sealer. */
export interface Rewrapper {
  currentKeyId: string;
  rewrap(envelope: string, context: string): string;
}

export interface RewrapOutcome {
  rewrapped: number;
  /** Rows whose envelope did not open (unknown KEK, tampered): left as they were. */
  failed: number;
}

const PAGE_SIZE = 100;

/**
 * Rewraps every envelope of `column` that is not under the current key-encryption key, so that an
 * old KEK can be dropped from KEY_ENCRYPTION_KEYS afterwards. A row changed meanwhile is left alone
 * (compare-and-set on the envelope); one that does not open is counted, not fatal.
 */
export async function rewrapSealedColumn(
  db: Kysely<unknown>,
  sealer: Rewrapper,
  target: SealedColumn,
): Promise<RewrapOutcome> {
  const anyDb = db as Kysely<Record<string, Record<string, string | null>>>;
  const current = `v1.${sealer.currentKeyId}.`;
  const key = sql<string>`${sql.ref(target.key)}::text`;
  const outcome: RewrapOutcome = { rewrapped: 0, failed: 0 };
  let after = "";
  for (;;) {
    const rows = await anyDb
      .selectFrom(target.table)
      .select([key.as("key"), sql<string>`${sql.ref(target.column)}`.as("sealed")])
      .where(target.column, "is not", null)
      .where(sql`left(${sql.ref(target.column)}, ${current.length})`, "<>", current)
      .where(key, ">", after)
      .orderBy(key)
      .limit(PAGE_SIZE)
      .execute();
    for (const row of rows) {
      let next: string;
      try {
        next = sealer.rewrap(row.sealed, target.context(row.key));
      } catch {
        outcome.failed += 1;
        continue;
      }
      const result = await anyDb
        .updateTable(target.table)
        .set({ [target.column]: next })
        .where(key, "=", row.key)
        .where(target.column, "=", row.sealed)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) outcome.rewrapped += 1;
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE_SIZE) return outcome;
    after = last.key;
  }
}
