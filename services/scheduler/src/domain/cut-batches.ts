import { randomUUID } from "node:crypto";
import { fromHex, hashLeaf, inclusionProof, merkleRoot, toHex } from "@attesto/protocol";
import type { BatchPlan, PendingLeaf, SchedulerDependencies } from "./ports.js";

/**
 * The batch of `leaves` (in order), or none when it is not due: fewer than the maximum size and
 * none has waited the interval. Leaf data is the salted digest; the leaf hash SHA-256(0x00 || it).
 */
export function planBatch(leaves: PendingLeaf[], maxSize: number): BatchPlan | undefined {
  if (leaves.length === 0) return undefined;
  if (leaves.length < maxSize && !leaves.some((leaf) => leaf.due)) return undefined;
  const hashes = leaves.map((leaf) => hashLeaf(fromHex(leaf.saltedDigest)));
  const root = toHex(merkleRoot(hashes));
  const batchId = randomUUID();
  return {
    batchId,
    root,
    leaves: leaves.map((leaf, leafIndex) => ({
      objectId: leaf.objectId,
      inclusion: {
        batchId,
        root,
        leafIndex,
        treeSize: leaves.length,
        inclusionProof: inclusionProof(hashes, leafIndex).map(toHex),
      },
    })),
  };
}

/**
 * Cuts every due batch (several replicas may run this at once: rows are locked, skipped by others).
 * `pendingLeft`: notarizations were left unbatched because none was due yet (or others held them).
 */
export async function cutDueBatches(
  deps: Pick<SchedulerDependencies, "notarizations" | "metrics" | "batch">,
): Promise<{ cut: number; pendingLeft: boolean }> {
  const { maxSize, intervalMs } = deps.batch;
  let cut = 0;
  for (;;) {
    let size = 0;
    let pendingLeft = false;
    const made = await deps.notarizations.cutBatch(maxSize, intervalMs, (leaves) => {
      const plan = planBatch(leaves, maxSize);
      size = plan?.leaves.length ?? 0;
      pendingLeft = !plan && leaves.length > 0;
      return plan;
    });
    if (!made) return { cut, pendingLeft };
    deps.metrics.batchCut(size);
    cut += 1;
  }
}
