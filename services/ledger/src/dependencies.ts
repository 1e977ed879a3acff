import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createWakeSignal } from "@attesto/runtime/polling-loop";
import type { ServiceContext } from "@attesto/runtime/service";
import type { LedgerConfig } from "./config.js";
import { createCheckpointSigner, lazyCheckpointSigner } from "./domain/checkpoint-signer.js";
import { createCheckpointing } from "./domain/checkpointing.js";
import { loadSigningKey } from "./domain/load-signing-key.js";
import type { AppendTransactions, LedgerDependencies } from "./domain/ports.js";
import { createLedgerRepositories } from "./store/create-repositories.js";

/**
 * The ledger's dependencies for a service context. `service.ts` builds them once per running
 * service (`perService`) for the public app, the RPC handlers and the checkpointer (one signing
 * key, one in-process checkpoint refresh at a time). Checkpoint JWS name the ledger's public URL as `iss`.
 */
export function createDependencies(context: ServiceContext<LedgerConfig>): LedgerDependencies {
  const { KEY_ENCRYPTION_KEYS } = context.config;
  const sealer = KEY_ENCRYPTION_KEYS ? createEnvelopeSealer(KEY_ENCRYPTION_KEYS) : undefined;
  const now = () => new Date();
  const stored = createLedgerRepositories(context.db, now, sealer);
  const appended = createWakeSignal();
  // Every append transaction of this process wakes the background checkpointer once it commits.
  const appends: AppendTransactions = {
    async runSerialized(work) {
      const result = await stored.appends.runSerialized(work);
      appended.wake();
      return result;
    },
  };
  const repositories = { ...stored, appends };
  const signer = lazyCheckpointSigner(async () =>
    createCheckpointSigner(
      await loadSigningKey(repositories.keys, context.config.LEDGER_SIGNING_KEY),
      context.publicUrl,
    ),
  );
  const dependencies: LedgerDependencies = {
    repositories,
    signer,
    checkpointing: createCheckpointing({
      entries: repositories.entries,
      checkpoints: repositories.checkpoints,
      signer,
      now,
    }),
    checkpointOnRead: context.config.LEDGER_CHECKPOINT_ON_READ,
    appended,
    now,
  };
  return dependencies;
}
