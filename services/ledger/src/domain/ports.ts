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

/** What use cases, routes and RPC handlers work with; built once per service context. */
export interface LedgerDependencies {
  repositories: LedgerRepositories;
  checkpointing: Checkpointing;
  signer: CheckpointSigner;
  /** Sign a checkpoint on demand when a read needs one that does not exist yet (LEDGER_CHECKPOINT_ON_READ). */
  checkpointOnRead: boolean;
  /** Woken after every append transaction of this process (the background checkpointer listens). */
  appended: WorkSignal;
  now: () => Date;
}

export interface Checkpointing {
  latest(): Promise<Checkpoint | undefined>;
  /** Signs a checkpoint of the whole log when it grew since the latest one (or none exists yet). */
  refresh(): Promise<Checkpoint>;
  /** The latest checkpoint once it covers log position `sequence`, signing a new one if needed. */
  ensureCovering(sequence: number): Promise<Checkpoint>;
}

export interface CheckpointSigner {
  publicJwk(): Promise<CheckpointPublicJwk>;
  /** Compact JWS: header {alg EdDSA, typ, kid}, payload the claims plus `iss` and `iat`. */
  sign(claims: CheckpointClaims): Promise<string>;
}

/** The ledger's published verification key. */
export interface CheckpointPublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  /** RFC 7638 thumbprint; also the `kid` header of every checkpoint JWS. */
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

/** The claims a checkpoint JWS carries. */
export interface CheckpointClaims {
  tree_size: number;
  root_hash: string;
  /** ISO 8601, the checkpoint's `created_at`. */
  created_at: string;
}

/** Work created by this process, announced to the background loop that picks it up (structurally a `WakeSignal` of the runtime's polling loop). */
export interface WorkSignal {
  wake(): void;
  subscribe(listener: () => void): () => void;
}
