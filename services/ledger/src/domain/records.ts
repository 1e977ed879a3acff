import type { Ed25519PrivateJwk, Ed25519PublicJwk } from "@attesto/protocol";
import type { DidDocument } from "./did-document.js";

/** A DID anchored on the ledger. Written by CreateDid; `deactivated*` and `updatedAt` by DeactivateDid. */
export interface DidRecord {
  did: string;
  /** `<did>#key-1`. */
  keyId: string;
  publicJwk: Ed25519PublicJwk;
  document: DidDocument;
  deactivated: boolean;
  /** Log position of the `did.create` entry. */
  createdSequence: number;
  /** Log position of the `did.deactivate` entry, once deactivated. */
  deactivatedSequence: number | undefined;
  createdAt: Date;
  updatedAt: Date;
}

/** A notarized digest. Written once by Notarize, never changed. */
export interface NotarizationRecord {
  /** UUID chosen by the ledger. */
  objectId: string;
  /** Lowercase hex SHA-256 digest the caller notarized. */
  digest: string;
  /** The caller's key for safe retries; kept out of the public log entry. */
  idempotencyKey: string | undefined;
  /** Log position of the `notarization` entry. */
  sequence: number;
  /** The entry's `created_at`. */
  recordedAt: Date;
}

/** A signed statement of the log's Merkle root at a size. Written by the checkpointer. */
export interface Checkpoint {
  /** Number of entries covered: sequences 0 .. treeSize - 1. */
  treeSize: number;
  /** Lowercase hex RFC 6962 root over those entries' leaf hashes. */
  rootHash: string;
  createdAt: Date;
  /** Compact JWS by the ledger key (see checkpoint-signer.ts). */
  signatureJws: string;
}

/** The ledger's own key pair (only the checkpoint-signing key today). */
export interface LedgerKey {
  purpose: "checkpoint-signing";
  privateJwk: Ed25519PrivateJwk;
  publicJwk: Ed25519PublicJwk;
}
