import type { Kysely } from "kysely";
import type { CheckpointRepository } from "../domain/ports.js";
import type { Checkpoint } from "../domain/records.js";
import type { LedgerTables } from "./tables.js";

const toCheckpoint = (row: LedgerTables["checkpoints"]): Checkpoint => ({
  treeSize: row.tree_size,
  rootHash: row.root_hash,
  createdAt: row.created_at,
  signatureJws: row.signature_jws,
});

export function createCheckpointStore(db: Kysely<LedgerTables>): CheckpointRepository {
  const find = async (treeSize: number) => {
    const row = await db.selectFrom("checkpoints").selectAll().where("tree_size", "=", treeSize).executeTakeFirst();
    return row && toCheckpoint(row);
  };

  return {
    async latest() {
      const row = await db
        .selectFrom("checkpoints")
        .selectAll()
        .orderBy("tree_size", "desc")
        .limit(1)
        .executeTakeFirst();
      return row && toCheckpoint(row);
    },

    async insertIfAbsent(checkpoint) {
      await db
        .insertInto("checkpoints")
        .values({
          tree_size: checkpoint.treeSize,
          root_hash: checkpoint.rootHash,
          signature_jws: checkpoint.signatureJws,
          created_at: checkpoint.createdAt,
        })
        .onConflict((oc) => oc.column("tree_size").doNothing())
        .execute();
      const stored = await find(checkpoint.treeSize);
      if (!stored) throw new Error(`checkpoint ${checkpoint.treeSize} vanished after insert`);
      return stored;
    },
  };
}
