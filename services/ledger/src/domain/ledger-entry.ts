import { hashLeaf } from "@attesto/protocol";
import { canonicalJson } from "./canonical-json.js";
import { fromHex, sha256, toHex, utf8 } from "./hashes.js";
import type { JsonObject } from "./json.js";

export const entryKinds = ["did.create", "did.deactivate", "notarization"] as const;
export type EntryKind = (typeof entryKinds)[number];

/** What an entry says, before it is placed in the log. */
export interface EntryContent {
  kind: EntryKind;
  /** Public data only: DIDs and their documents, digests and object ids. Never credential contents. */
  payload: JsonObject;
  createdAt: Date;
}

/** One row of the append-only log: its content, its position and the hashes that chain it. */
export interface LedgerEntry extends EntryContent {
  /** 0, 1, 2, ... without gaps. */
  sequence: number;
  /** RFC 6962 leaf hash of the canonical entry bytes: what the Merkle tree is built from. */
  leafHash: string;
  /** entryHash of the previous entry; GENESIS_PREV_HASH for sequence 0. */
  prevHash: string;
  /** SHA-256(prevHash || leafHash) over the raw 32-byte values. */
  entryHash: string;
}

/** The head of the log an entry is appended after. */
export type LogHead = Pick<LedgerEntry, "sequence" | "entryHash">;

export const GENESIS_PREV_HASH = "0".repeat(64);

/**
 * The bytes an entry's leaf hash covers: canonical JSON (RFC 8785) of
 * `{created_at, kind, payload, sequence}`, `created_at` as an ISO 8601 UTC string with milliseconds.
 * A verifier who knows a record rebuilds these bytes from the record alone.
 */
export function canonicalEntryBytes(entry: EntryContent & { sequence: number }): Uint8Array {
  return utf8(
    canonicalJson({
      created_at: entry.createdAt.toISOString(),
      kind: entry.kind,
      payload: entry.payload,
      sequence: entry.sequence,
    }),
  );
}

export const leafHashOf = (entry: EntryContent & { sequence: number }): string =>
  toHex(hashLeaf(canonicalEntryBytes(entry)));

export const chainHash = (prevHash: string, leafHash: string): string =>
  toHex(sha256(fromHex(prevHash), fromHex(leafHash)));

/** Places `content` right after `head` (or first, in an empty log) and computes its hashes. */
export function sealEntry(head: LogHead | undefined, content: EntryContent): LedgerEntry {
  const sequence = head ? head.sequence + 1 : 0;
  const prevHash = head ? head.entryHash : GENESIS_PREV_HASH;
  const leafHash = leafHashOf({ ...content, sequence });
  return { ...content, sequence, leafHash, prevHash, entryHash: chainHash(prevHash, leafHash) };
}
