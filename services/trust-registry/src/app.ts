import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { TrustRegistryConfig } from "./config.js";
import { createDependencies, createDomain, type TrustRegistryDeps } from "./dependencies.js";
import type { TrustRegistryDomain } from "./domain/dependencies.js";
import { registerApplyRoute } from "./routes/apply.route.js";
import { registerDidRoutes } from "./routes/did.routes.js";
import { registerGetDidConfigurationRoute } from "./routes/get-did-configuration.route.js";
import { registerLogInRoute } from "./routes/log-in.route.js";
import { registerTrustAnchorRoutes } from "./routes/trust-anchors.routes.js";

/**
 * The trust-registry public API (this service's README). `deps` are the service's edges; tests pass doubles.
 * `domain` is built from them unless the caller shares one (the service module: one per running service).
 */
export async function buildApp(
  context: ServiceContext<TrustRegistryConfig>,
  deps: TrustRegistryDeps = createDependencies(context),
  domain: TrustRegistryDomain = createDomain(context, deps),
): Promise<App> {
  const app = await createServiceApp(context);
  registerApplyRoute(app, domain, context.rateLimits);
  registerLogInRoute(app, domain, context.rateLimits);
  await registerDidRoutes(app, domain);
  registerGetDidConfigurationRoute(app, domain);
  registerTrustAnchorRoutes(app, domain);
  return app;
}
