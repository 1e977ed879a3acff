import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import type { Kysely } from "kysely";
import type { LedgerRepositories } from "../domain/ports.js";
import { createAppendTransactions } from "./append-transactions.store.js";
import { createCheckpointStore } from "./checkpoint.store.js";
import { createDidStore } from "./did.store.js";
import { createLedgerEntryStore } from "./ledger-entry.store.js";
import { createLedgerKeyStore } from "./ledger-key.store.js";
import { createNotarizationStore } from "./notarization.store.js";
import type { LedgerTables } from "./tables.js";

/**
 * The ledger's repositories on PostgreSQL (`database` is already bound to the service's schema);
 * `now` is the service's clock; `sealer` encrypts the ledger's private keys at rest.
 */
export function createLedgerRepositories(
  database: Kysely<unknown>,
  now: () => Date,
  sealer?: EnvelopeSealer,
): LedgerRepositories {
  const db = database as Kysely<LedgerTables>;
  return {
    entries: createLedgerEntryStore(db),
    dids: createDidStore(db),
    notarizations: createNotarizationStore(db),
    checkpoints: createCheckpointStore(db),
    keys: createLedgerKeyStore(db, now, sealer),
    appends: createAppendTransactions(db),
  };
}
