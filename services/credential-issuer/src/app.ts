import { type App, acceptEmptyJsonBody } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { CredentialIssuerConfig } from "./config.js";
import { createIssuerMetrics } from "./credential-issuer-metrics.js";
import { createDependencies } from "./dependencies.js";
import type { IssuerDependencies } from "./domain/ports.js";
import { registerCreateNonceRoute } from "./routes/create-nonce.route.js";
import { registerCreateOfferRoute } from "./routes/create-offer.route.js";
import { registerCredentialRoute } from "./routes/credential.route.js";
import { registerCredentialsRoutes } from "./routes/credentials.route.js";
import { registerGetOfferRoute } from "./routes/get-offer.route.js";
import { registerIssuerMetadataRoutes } from "./routes/issuer-metadata.route.js";
import { registerJwtVcIssuerMetadataRoute } from "./routes/jwt-vc-issuer-metadata.route.js";
import { registerNotificationRoute } from "./routes/notification.route.js";
import { registerOfferLinkRoutes } from "./routes/offer-link.route.js";
import { registerStatusListRoute } from "./routes/status-list.route.js";
import { registerTenantLandingRoute } from "./routes/tenant-landing.route.js";

/** The credential issuer's public API: offers, nonces, the credential endpoint, issuer metadata, JWT VC Issuer Metadata and status lists. */
export async function buildApp(
  context: ServiceContext<CredentialIssuerConfig>,
  deps: IssuerDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerCreateOfferRoute(app, deps);
  registerGetOfferRoute(app, deps);
  registerOfferLinkRoutes(app, deps);
  registerCredentialsRoutes(app, deps);
  // Wallet endpoints: an empty JSON body is a valid request here.
  await app.register(async (scope: App) => {
    acceptEmptyJsonBody(scope);
    registerCreateNonceRoute(scope, deps);
    registerCredentialRoute(scope, deps, createIssuerMetrics(context.metrics.registry));
    registerNotificationRoute(scope, deps);
  });
  registerIssuerMetadataRoutes(app, deps);
  registerJwtVcIssuerMetadataRoute(app, deps);
  registerStatusListRoute(app, deps);
  registerTenantLandingRoute(app, deps);
  return app;
}
