import { perService, readPackageVersion, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type HolderConfig, holderPorts, loadHolderConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { migrations } from "./store/migrations/index.js";
import { sealedColumns } from "./store/sealed-columns.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

export const holder: ServiceModule<HolderConfig> = {
  definition: {
    name: "holder",
    version: readPackageVersion(import.meta.url),
    migrations,
    sealedColumns,
    // GET /ready needs these peers (ledger: DIDs and status).
    readinessPeers: (config) => ({ ledger: config.LEDGER_INTERNAL_URL }),
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
  },
  loadConfig: loadHolderConfig,
  ports: holderPorts,
};
