import { notaryV1 } from "@attesto/proto";
import { loggerOptions } from "@attesto/runtime/logging";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import pino from "pino";
import { buildApp } from "./app.js";
import { loadSchedulerConfig, type SchedulerConfig, schedulerPorts } from "./config.js";
import { createSchedulerRuntime, type SchedulerRuntime, startSchedulerRuntime } from "./create-dependencies.js";
import { NotaryServiceRpc } from "./rpc/notary-service.rpc.js";
import { migrations } from "./store/migrations/index.js";

/** One runtime per running service, shared by the workers (init) and the internal RPC. */
const runtimeOf = perService((context: ServiceContext<SchedulerConfig>): SchedulerRuntime => {
  const log = pino(loggerOptions(context.service, context.config.LOG_LEVEL));
  return createSchedulerRuntime(context, {}, (error) => log.error({ err: error }, "job queue error"));
});

/** Start-up: the job queue (its schema is installed or migrated), workers, batch cutter and reconciler. */
async function startScheduler(context: ServiceContext<SchedulerConfig>): Promise<() => Promise<void>> {
  const log = pino(loggerOptions(context.service, context.config.LOG_LEVEL));
  return startSchedulerRuntime(runtimeOf(context), context.config, (error, activity) =>
    log.error({ err: error, activity }, "background work failed"),
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
      router.service(notaryV1.NotaryService, new NotaryServiceRpc(runtimeOf(context).deps));
    },
  },
  loadConfig: loadSchedulerConfig,
  ports: schedulerPorts,
};
