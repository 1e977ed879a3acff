import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { LedgerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { LedgerDependencies } from "./domain/ports.js";
import { registerGetLatestCheckpointRoute } from "./routes/get-latest-checkpoint.route.js";
import { registerGetRecordRoute } from "./routes/get-record.route.js";
import { registerResolveDidRoute } from "./routes/resolve-did.route.js";

/** The ledger's public API, for external verifiers and debugging: DIDs, records and checkpoints. */
export async function buildApp(
  context: ServiceContext<LedgerConfig>,
  dependencies: LedgerDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerResolveDidRoute(app, dependencies);
  registerGetRecordRoute(app, dependencies);
  registerGetLatestCheckpointRoute(app, dependencies);
  return app;
}
