import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createWakeSignal } from "@attesto/runtime/polling-loop";
import type { ServiceContext } from "@attesto/runtime/service";
import type { LedgerConfig } from "./config.js";
import { createCheckpointSigner, lazyCheckpointSigner } from "./domain/checkpoint-signer.js";
import { createCheckpointing } from "./domain/checkpointing.js";
import { loadSigningKey } from "./domain/load-signing-key.js";
import type { AppendTransactions, LedgerDependencies, LedgerRepositories, WorkSignal } from "./domain/ports.js";
import { createLedgerRepositories } from "./store/create-repositories.js";

/**
 * The ledger's dependencies for a service context. `service.ts` builds them once per running
 * service (`perService`) for the public app, the RPC handlers and the checkpointer (one signing
 * key, one in-process checkpoint refresh at a time). Checkpoint JWS name the ledger's public URL as `iss`.
 * The clock is the context's; `overrides` replace single edges (tests), and the edges built from
 * them (checkpointing from repositories, signer and clock) use the replacements.
 */
export function createDependencies(
  context: ServiceContext<LedgerConfig>,
  overrides: Partial<LedgerDependencies> = {},
): LedgerDependencies {
  const { KEY_ENCRYPTION_KEYS } = context.config;
  const now = overrides.now ?? context.clock;
  const appended = overrides.appended ?? createWakeSignal();
  const repositories =
    overrides.repositories ??
    wakingOnAppend(
      createLedgerRepositories(
        context.db,
        now,
        KEY_ENCRYPTION_KEYS ? createEnvelopeSealer(KEY_ENCRYPTION_KEYS) : undefined,
      ),
      appended,
    );
  const signer =
    overrides.signer ??
    lazyCheckpointSigner(async () =>
      createCheckpointSigner(
        await loadSigningKey(repositories.keys, context.config.LEDGER_SIGNING_KEY),
        context.publicUrl,
      ),
    );
  return {
    repositories,
    signer,
    checkpointing:
      overrides.checkpointing ??
      createCheckpointing({
        entries: repositories.entries,
        checkpoints: repositories.checkpoints,
        signer,
        now,
      }),
    checkpointOnRead: overrides.checkpointOnRead ?? context.config.LEDGER_CHECKPOINT_ON_READ,
    appended,
    now,
  };
}

/** Every append transaction of this process wakes the background checkpointer once it commits. */
function wakingOnAppend(stored: LedgerRepositories, appended: WorkSignal): LedgerRepositories {
  const appends: AppendTransactions = {
    async runSerialized(work) {
      const result = await stored.appends.runSerialized(work);
      appended.wake();
      return result;
    },
  };
  return { ...stored, appends };
}
