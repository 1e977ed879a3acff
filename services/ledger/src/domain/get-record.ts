import { inclusionProof, merkleRoot } from "@attesto/protocol";
import { badRequest, internalError, notFound } from "@attesto/runtime/errors";
import { fromHex, toHex } from "./hashes.js";
import type { LedgerDependencies } from "./ports.js";
import type { Checkpoint, NotarizationRecord } from "./records.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface RecordWithProof {
  record: NotarizationRecord;
  /** RFC 6962 leaf hash of the record's log entry. */
  leafHash: string;
  /** The checkpoint the proof leads to; undefined while none covers the record. */
  checkpoint: Checkpoint | undefined;
  /** Audit path (lowercase hex, deepest first) from `leafHash` to `checkpoint.rootHash`; empty without a checkpoint. */
  inclusionProof: string[];
}

/** Parses an object id: a UUID, compared in lowercase. */
export function parseObjectId(objectId: string): string {
  const normalized = objectId.toLowerCase();
  if (!UUID.test(normalized)) throw badRequest("object_id must be a UUID");
  return normalized;
}

/**
 * A notarization record with its inclusion proof. When no checkpoint covers the record yet, one is
 * signed on demand if `checkpointOnRead` (so a caller never waits for the checkpointer), else the
 * record is returned without proof. The proof comes from the leaves the checkpoint covers, which
 * are checked against its signed root first: a log changed underneath fails loudly.
 */
export async function getRecord(
  dependencies: Pick<LedgerDependencies, "repositories" | "checkpointing" | "checkpointOnRead">,
  objectId: string,
): Promise<RecordWithProof> {
  const { repositories, checkpointing } = dependencies;
  const record = await repositories.notarizations.find(parseObjectId(objectId));
  if (!record) throw notFound("Record not found");
  const checkpoint = dependencies.checkpointOnRead
    ? await checkpointing.ensureCovering(record.sequence)
    : await checkpointing.latest();
  if (!checkpoint || checkpoint.treeSize <= record.sequence) {
    const [entry] = await repositories.entries.list({ from: record.sequence, limit: 1 });
    if (!entry) throw internalError("notarization record without its log entry");
    return { record, leafHash: entry.leafHash, checkpoint: undefined, inclusionProof: [] };
  }
  const leaves = (await repositories.entries.leafHashes(checkpoint.treeSize)).map(fromHex);
  if (leaves.length !== checkpoint.treeSize || toHex(merkleRoot(leaves)) !== checkpoint.rootHash) {
    throw internalError("the log no longer matches its signed checkpoint");
  }
  return {
    record,
    leafHash: toHex(leaves[record.sequence]!),
    checkpoint,
    inclusionProof: inclusionProof(leaves, record.sequence).map(toHex),
  };
}
