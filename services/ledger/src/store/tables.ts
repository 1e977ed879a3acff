import type { Ed25519PrivateJwk, Ed25519PublicJwk } from "@attesto/protocol";
import type { DidDocument } from "../domain/did-document.js";
import type { JsonObject } from "../domain/json.js";
import type { EntryKind } from "../domain/ledger-entry.js";

/** jsonb columns are written as JSON text cast to jsonb (see jsonb.ts) and read back parsed. */
export interface LedgerEntriesTable {
  sequence: number;
  kind: EntryKind;
  payload: JsonObject;
  leaf_hash: string;
  prev_hash: string;
  entry_hash: string;
  created_at: Date;
}

export interface DidsTable {
  did: string;
  key_id: string;
  public_jwk: Ed25519PublicJwk;
  document: DidDocument;
  deactivated: boolean;
  created_sequence: number;
  deactivated_sequence: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface NotarizationsTable {
  object_id: string;
  digest: string;
  idempotency_key: string | null;
  sequence: number;
  recorded_at: Date;
}

export interface CheckpointsTable {
  tree_size: number;
  root_hash: string;
  signature_jws: string;
  created_at: Date;
}

export interface LedgerKeysTable {
  purpose: string;
  /** AES-256-GCM envelope of the private JWK (JSON), under KEY_ENCRYPTION_KEYS. */
  sealed_private_jwk: string | null;
  /** The private JWK in clear, only when no key-encryption key is configured. */
  private_jwk: Ed25519PrivateJwk | null;
  public_jwk: Ed25519PublicJwk;
  created_at: Date;
}

export interface LedgerTables {
  ledger_entries: LedgerEntriesTable;
  dids: DidsTable;
  notarizations: NotarizationsTable;
  checkpoints: CheckpointsTable;
  ledger_keys: LedgerKeysTable;
}
