import { chainHash, GENESIS_PREV_HASH, type LedgerEntry, type LogHead, leafHashOf } from "./ledger-entry.js";

export type ChainVerification =
  | { valid: true; size: number; head: string }
  | { valid: false; sequence: number; problem: "gap" | "leaf_hash" | "prev_hash" | "entry_hash" };

/**
 * Recomputes the log from its entries: positions without gaps from 0, each leaf hash from the
 * entry's content, each link to the previous entry and each chain hash. The first broken entry is
 * reported. `after` continues a verification that stopped at that head (for paging).
 */
export function verifyChain(entries: readonly LedgerEntry[], after?: LogHead): ChainVerification {
  let expectedSequence = after ? after.sequence + 1 : 0;
  let prevHash = after ? after.entryHash : GENESIS_PREV_HASH;
  for (const entry of entries) {
    const { sequence } = entry;
    if (sequence !== expectedSequence) return { valid: false, sequence: expectedSequence, problem: "gap" };
    if (entry.leafHash !== leafHashOf(entry)) return { valid: false, sequence, problem: "leaf_hash" };
    if (entry.prevHash !== prevHash) return { valid: false, sequence, problem: "prev_hash" };
    if (entry.entryHash !== chainHash(entry.prevHash, entry.leafHash)) {
      return { valid: false, sequence, problem: "entry_hash" };
    }
    prevHash = entry.entryHash;
    expectedSequence++;
  }
  return { valid: true, size: expectedSequence, head: prevHash };
}
