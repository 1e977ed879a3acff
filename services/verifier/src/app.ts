import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { VerifierConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { VerifierDependencies } from "./domain/ports.js";
import { registerCreateAuthorizationRequestRoute } from "./routes/create-authorization-request.route.js";
import { registerDcApiAssetRoutes } from "./routes/dc-api-assets.route.js";
import { registerGetRequestObjectRoute } from "./routes/get-request-object.route.js";
import { registerGetVerificationResultRoute } from "./routes/get-verification-result.route.js";
import { registerRequestLinkRoutes } from "./routes/request-link.route.js";
import { registerSubmitDcApiResponseRoute } from "./routes/submit-dc-api-response.route.js";
import { registerSubmitPresentationRoute } from "./routes/submit-presentation.route.js";

/** The verifier's public API (this service's README). Tests pass their own `deps` (in-memory edges, a clock). */
export async function buildApp(
  context: ServiceContext<VerifierConfig>,
  deps: VerifierDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerCreateAuthorizationRequestRoute(app, deps);
  registerGetRequestObjectRoute(app, deps);
  registerRequestLinkRoutes(app, deps);
  registerSubmitPresentationRoute(app, deps);
  registerSubmitDcApiResponseRoute(app, deps);
  registerDcApiAssetRoutes(app);
  registerGetVerificationResultRoute(app, deps);
  return app;
}
