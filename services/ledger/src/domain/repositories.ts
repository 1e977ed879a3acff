import type { LedgerEntry, LogHead } from "./ledger-entry.js";
import type { Checkpoint, DidRecord, LedgerKey, NotarizationRecord } from "./records.js";

/** The append-only log (implemented in store/). */
export interface LedgerEntryRepository {
  /** The last entry, or undefined for an empty log. */
  head(): Promise<LogHead | undefined>;
  insert(entry: LedgerEntry): Promise<void>;
  /** Number of entries: the log is gapless, so this is the next sequence. */
  size(): Promise<number>;
  /** Up to `limit` entries from sequence `from`, in order. */
  list(range: { from: number; limit: number }): Promise<LedgerEntry[]>;
  /** Leaf hashes of the first `treeSize` entries, in order, read in one consistent statement. */
  leafHashes(treeSize: number): Promise<string[]>;
}

export interface DidRepository {
  find(did: string): Promise<DidRecord | undefined>;
  insert(record: DidRecord): Promise<void>;
  markDeactivated(did: string, change: { sequence: number; at: Date }): Promise<void>;
}

export interface NotarizationRepository {
  find(objectId: string): Promise<NotarizationRecord | undefined>;
  findByIdempotencyKey(key: string): Promise<NotarizationRecord | undefined>;
  insert(record: NotarizationRecord): Promise<void>;
}

export interface CheckpointRepository {
  /** The checkpoint with the largest tree size. */
  latest(): Promise<Checkpoint | undefined>;
  /** Stores `checkpoint` unless one of that tree size exists; returns the stored one either way. */
  insertIfAbsent(checkpoint: Checkpoint): Promise<Checkpoint>;
}

export interface LedgerKeyRepository {
  /** Stores `key` unless a key of that purpose exists; returns the stored one (first writer wins). */
  insertIfAbsent(key: LedgerKey): Promise<LedgerKey>;
}

/** The repositories an append works with, all bound to its transaction. */
export interface AppendScope {
  entries: LedgerEntryRepository;
  dids: DidRepository;
  notarizations: NotarizationRepository;
}

/**
 * Appends run one at a time: `work` runs in a transaction that first takes the log's append lock,
 * so reading the head and inserting the next entry cannot interleave with another append (the
 * chain never forks), and the entry and its DID or notarization row commit together or not at all.
 * `work` must use only the repositories it is given.
 */
export interface AppendTransactions {
  runSerialized<T>(work: (scope: AppendScope) => Promise<T>): Promise<T>;
}

/** Everything the ledger reads and writes outside an append. */
export interface LedgerRepositories {
  entries: LedgerEntryRepository;
  dids: DidRepository;
  notarizations: NotarizationRepository;
  checkpoints: CheckpointRepository;
  keys: LedgerKeyRepository;
  appends: AppendTransactions;
}
