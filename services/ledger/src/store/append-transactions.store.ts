import { type Kysely, sql } from "kysely";
import type { AppendTransactions } from "../domain/ports.js";
import { createDidStore } from "./did.store.js";
import { createLedgerEntryStore } from "./ledger-entry.store.js";
import { createNotarizationStore } from "./notarization.store.js";
import type { LedgerTables } from "./tables.js";

/**
 * The append lock: a transaction-scoped advisory lock, released at commit or rollback. Its key is
 * the same for every schema of the database, so ledgers sharing a database (test schemas) also
 * queue behind each other; harmless, and there is one ledger schema per deployment.
 */
const APPEND_LOCK = sql`pg_advisory_xact_lock(hashtextextended('attesto.ledger.append', 0))`;

/**
 * Appends in one transaction each, serialized by the lock. Under READ COMMITTED every statement
 * after the lock sees every append committed before it, so the head read is the true head. The
 * primary key on sequence and the unique prev_hash still refuse a fork should the lock ever be bypassed.
 */
export function createAppendTransactions(db: Kysely<LedgerTables>): AppendTransactions {
  return {
    runSerialized: (work) =>
      db.transaction().execute(async (trx) => {
        await sql`SELECT ${APPEND_LOCK}`.execute(trx);
        return work({
          entries: createLedgerEntryStore(trx),
          dids: createDidStore(trx),
          notarizations: createNotarizationStore(trx),
        });
      }),
  };
}
