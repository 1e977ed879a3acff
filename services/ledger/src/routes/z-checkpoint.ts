import { z } from "zod";
import type { Checkpoint } from "../domain/records.js";

/** A signed checkpoint on the wire (snake_case, timestamps as ISO 8601). */
export const zCheckpoint = z.object({
  tree_size: z.number().int(),
  root_hash: z.string(),
  created_at: z.string(),
  signature_jws: z.string(),
});

export const toCheckpointBody = (checkpoint: Checkpoint): z.infer<typeof zCheckpoint> => ({
  tree_size: checkpoint.treeSize,
  root_hash: checkpoint.rootHash,
  created_at: checkpoint.createdAt.toISOString(),
  signature_jws: checkpoint.signatureJws,
});
