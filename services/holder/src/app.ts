import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { HolderConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { HolderDependencies } from "./domain/ports.js";
import { registerDidRoutes } from "./routes/did.routes.js";
import { requireHolderToken } from "./routes/holder-auth.js";
import { registerOid4vciRoutes } from "./routes/oid4vci.routes.js";
import { registerAuthorizationRoutes, registerCallbackRoute } from "./routes/oid4vci-authorization.routes.js";
import { registerOid4vpRoutes } from "./routes/oid4vp.routes.js";
import { registerUserRoutes } from "./routes/user.routes.js";
import { registerVcRoutes } from "./routes/vc.routes.js";

/** The holder's public API (this service's README). Tests pass their own `deps` (ledger double, clock). */
export async function buildApp(
  context: ServiceContext<HolderConfig>,
  deps: HolderDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerUserRoutes(app, deps);
  // The browser's return from an authorization server: public, the flow's state names the holder.
  registerCallbackRoute(app, deps);
  // Everything else needs the holder's login token and sees only that holder's data.
  await app.register(async (scope: App) => {
    requireHolderToken(scope, deps);
    registerDidRoutes(scope, deps);
    registerVcRoutes(scope, deps);
    registerOid4vciRoutes(scope, deps);
    registerAuthorizationRoutes(scope, deps);
    registerOid4vpRoutes(scope, deps);
  });
  return app;
}
