import { notFound } from "@attesto/runtime/errors";
import type { CheckpointPublicJwk, LedgerDependencies } from "./ports.js";
import type { Checkpoint } from "./records.js";

/**
 * The latest signed checkpoint and the key that verifies it. With `checkpointOnRead`, a ledger that
 * has none yet signs one now; otherwise 404 until the checkpointer's first tick.
 */
export async function getLatestCheckpoint(
  dependencies: Pick<LedgerDependencies, "checkpointing" | "signer" | "checkpointOnRead">,
): Promise<{ checkpoint: Checkpoint; publicJwk: CheckpointPublicJwk }> {
  const { checkpointing, signer } = dependencies;
  let checkpoint = await checkpointing.latest();
  if (!checkpoint && dependencies.checkpointOnRead) checkpoint = await checkpointing.refresh();
  if (!checkpoint) throw notFound("No checkpoint yet");
  return { checkpoint, publicJwk: await signer.publicJwk() };
}
