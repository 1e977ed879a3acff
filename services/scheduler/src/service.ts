import { notaryV1 } from "@attesto/proto";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { loadSchedulerConfig, type SchedulerConfig, schedulerPorts } from "./config.js";
import { createDependencies, startSchedulerRuntime } from "./dependencies.js";
import { NotaryServiceRpc } from "./rpc/notary-service.rpc.js";
import { migrations } from "./store/migrations/index.js";

/** One set of dependencies (with the job queue) per running service, shared by the workers (init) and the internal RPC. */
export const dependenciesOf = perService(createDependencies);

/** Start-up: the job queue (its schema is installed or migrated), workers, batch cutter and reconciler. */
async function startScheduler(context: ServiceContext<SchedulerConfig>): Promise<() => Promise<void>> {
  return startSchedulerRuntime(dependenciesOf(context), context.config, (error, activity) =>
    context.logger.error({ err: error, activity }, "background work failed"),
  );
}

export const scheduler: ServiceModule<SchedulerConfig> = {
  definition: {
    name: "scheduler",
    version: readPackageVersion(import.meta.url),
    migrations,
    // GET /ready needs these peers (ledger: anchoring; trust-registry: webhook targets).
    readinessPeers: (config) => ({
      ledger: config.LEDGER_INTERNAL_URL,
      "trust-registry": config.TRUST_REGISTRY_INTERNAL_URL,
    }),
    buildApp,
    init: startScheduler,
    rpc(router, context) {
      router.service(notaryV1.NotaryService, new NotaryServiceRpc(dependenciesOf(context)));
    },
  },
  loadConfig: loadSchedulerConfig,
  ports: schedulerPorts,
};
