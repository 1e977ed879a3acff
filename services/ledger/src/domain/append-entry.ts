import type { JsonObject } from "./json.js";
import { type EntryKind, type LedgerEntry, sealEntry } from "./ledger-entry.js";
import type { LedgerEntryRepository } from "./ports.js";

/**
 * Writes the next entry of the log. Call only inside `AppendTransactions.runSerialized`, whose lock
 * makes the head read here the head the entry is inserted after.
 */
export async function appendEntry(
  entries: LedgerEntryRepository,
  content: { kind: EntryKind; payload: JsonObject },
  now: Date,
): Promise<LedgerEntry> {
  const entry = sealEntry(await entries.head(), { ...content, createdAt: now });
  await entries.insert(entry);
  return entry;
}
