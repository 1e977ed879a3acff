import type { CheckpointSigner } from "./checkpoint-signer.js";
import type { Checkpointing } from "./checkpointing.js";
import type { LedgerRepositories } from "./repositories.js";

/** What use cases, routes and RPC handlers work with; built once per service context. */
export interface LedgerDependencies {
  repositories: LedgerRepositories;
  checkpointing: Checkpointing;
  signer: CheckpointSigner;
  /** Sign a checkpoint on demand when a read needs one that does not exist yet (LEDGER_CHECKPOINT_ON_READ). */
  checkpointOnRead: boolean;
  now: () => Date;
}
