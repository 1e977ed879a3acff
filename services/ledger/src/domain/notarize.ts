import { randomUUID } from "node:crypto";
import { badRequest, conflict } from "@attesto/runtime/errors";
import { appendEntry } from "./append-entry.js";
import { isSha256Hex } from "./hashes.js";
import type { LedgerDependencies } from "./ports.js";
import type { NotarizationRecord } from "./records.js";

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The name of this ledger's chain in notarization records. */
export const CHAIN_NAME = "ledger";

export interface NotarizeInput {
  digest: string;
  /** Empty or absent: every call appends a new record. */
  idempotencyKey?: string | undefined;
}

function parseNotarizeInput(input: NotarizeInput): { digest: string; idempotencyKey: string | undefined } {
  if (!isSha256Hex(input.digest)) throw badRequest("digest must be a SHA-256 digest: 64 lowercase hex characters");
  const idempotencyKey = input.idempotencyKey || undefined;
  if (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw badRequest(`idempotency_key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return { digest: input.digest, idempotencyKey };
}

/**
 * Appends a `notarization` entry `{object_id, digest}` (the idempotency key stays out of the public
 * entry). `object_id` is a random UUID: unrelated to the digest, so it reveals nothing about it and
 * two notarizations of one digest stay two records. A repeated idempotency key returns the first
 * record; reusing a key for another digest is a caller bug and answers 409 (AlreadyExists).
 */
export async function notarize(
  { repositories, now }: Pick<LedgerDependencies, "repositories" | "now">,
  input: NotarizeInput,
): Promise<NotarizationRecord> {
  const { digest, idempotencyKey } = parseNotarizeInput(input);
  return repositories.appends.runSerialized(async ({ entries, notarizations }) => {
    if (idempotencyKey !== undefined) {
      const existing = await notarizations.findByIdempotencyKey(idempotencyKey);
      if (existing) {
        if (existing.digest !== digest) throw conflict("idempotency_key was already used for another digest");
        return existing;
      }
    }
    const objectId = randomUUID();
    const entry = await appendEntry(entries, { kind: "notarization", payload: { object_id: objectId, digest } }, now());
    const record: NotarizationRecord = {
      objectId,
      digest,
      idempotencyKey,
      sequence: entry.sequence,
      recordedAt: entry.createdAt,
    };
    await notarizations.insert(record);
    return record;
  });
}
