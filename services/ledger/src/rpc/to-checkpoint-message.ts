import type { ledgerV1 } from "@attesto/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Checkpoint } from "../domain/records.js";

export const toCheckpointMessage = (checkpoint: Checkpoint): MessageInitShape<typeof ledgerV1.CheckpointSchema> => ({
  treeSize: BigInt(checkpoint.treeSize),
  rootHash: checkpoint.rootHash,
  createdAt: timestampFromDate(checkpoint.createdAt),
  signatureJws: checkpoint.signatureJws,
});
