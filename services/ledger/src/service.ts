import { ledgerV1 } from "@attesto/proto";
import { startPollingLoop } from "@attesto/runtime/polling-loop";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type LedgerConfig, ledgerPorts, loadLedgerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { LedgerServiceRpc } from "./rpc/ledger-service.rpc.js";
import { migrations } from "./store/migrations/index.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

/** Start-up: load (or generate and store) the signing key, then run the background checkpointer. */
async function startLedger(context: ServiceContext<LedgerConfig>): Promise<() => Promise<void>> {
  const { config, logger: log } = context;
  if (!config.LEDGER_SIGNING_KEY && !config.KEY_ENCRYPTION_KEYS) {
    log.warn("neither LEDGER_SIGNING_KEY nor KEY_ENCRYPTION_KEYS is set: the checkpoint key is stored unencrypted");
  }
  const dependencies = dependenciesOf(context);
  await dependencies.signer.publicJwk();
  // A new signed checkpoint whenever the log grew: every interval while it grows, woken by this
  // process's appends, every idle interval while it stands still.
  let treeSize = -1;
  const checkpointer = startPollingLoop({
    intervalMs: config.LEDGER_CHECKPOINT_INTERVAL_MS,
    idleIntervalMs: config.LEDGER_CHECKPOINT_IDLE_INTERVAL_MS,
    tick: async () => {
      const latest = await dependencies.checkpointing.refresh();
      const grew = latest.treeSize !== treeSize;
      treeSize = latest.treeSize;
      return grew;
    },
    onError: (error) => log.error({ err: error }, "checkpoint failed"),
    wakeOn: dependencies.appended,
  });
  return checkpointer.stop;
}

export const ledger: ServiceModule<LedgerConfig> = {
  definition: {
    name: "ledger",
    version: readPackageVersion(import.meta.url),
    migrations,
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
    init: startLedger,
    rpc(router, context) {
      router.service(ledgerV1.LedgerService, new LedgerServiceRpc(dependenciesOf(context)));
    },
  },
  loadConfig: loadLedgerConfig,
  ports: ledgerPorts,
};
