import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { TrustRegistryConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { TrustRegistryDependencies } from "./domain/ports.js";
import { registerApplyRoute } from "./routes/apply.route.js";
import { registerDidRoutes } from "./routes/did.routes.js";
import { registerGetDidConfigurationRoute } from "./routes/get-did-configuration.route.js";
import { registerLogInRoute } from "./routes/log-in.route.js";
import { registerTrustAnchorRoutes } from "./routes/trust-anchors.routes.js";

/**
 * The trust-registry public API (this service's README). `deps` are built from the context unless
 * the caller shares them (the service module: one set per running service) or tests pass doubles.
 */
export async function buildApp(
  context: ServiceContext<TrustRegistryConfig>,
  deps: TrustRegistryDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerApplyRoute(app, deps, context.rateLimits);
  registerLogInRoute(app, deps, context.rateLimits);
  await registerDidRoutes(app, deps);
  registerGetDidConfigurationRoute(app, deps);
  registerTrustAnchorRoutes(app, deps);
  return app;
}
