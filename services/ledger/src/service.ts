import { ledgerV1 } from "@attesto/proto";
import { createLogger } from "@attesto/runtime/logging";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type LedgerConfig, ledgerPorts, loadLedgerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { startCheckpointer } from "./domain/start-checkpointer.js";
import { LedgerServiceRpc } from "./rpc/ledger-service.rpc.js";
import { migrations } from "./store/migrations/index.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

/** Start-up: load (or generate and store) the signing key, then run the background checkpointer. */
async function startLedger(context: ServiceContext<LedgerConfig>): Promise<() => Promise<void>> {
  const { config } = context;
  const log = createLogger(context.service, config.LOG_LEVEL);
  if (!config.LEDGER_SIGNING_KEY && !config.KEY_ENCRYPTION_KEYS) {
    log.warn("neither LEDGER_SIGNING_KEY nor KEY_ENCRYPTION_KEYS is set: the checkpoint key is stored unencrypted");
  }
  const dependencies = dependenciesOf(context);
  await dependencies.signer.publicJwk();
  return startCheckpointer({
    checkpointing: dependencies.checkpointing,
    intervalMs: config.LEDGER_CHECKPOINT_INTERVAL_MS,
    onError: (error) => log.error({ err: error }, "checkpoint failed"),
  });
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
