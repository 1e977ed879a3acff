import { type App, acceptEmptyJsonBody } from "@attesto/runtime/http";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { registerCreateDidRoute } from "./create-did.route.js";
import { registerImportDidRoute } from "./import-did.route.js";
import { requireLoginToken } from "./login-token-auth.js";

/** The DID routes, in their own scope: login-token auth and empty JSON bodies apply only here. */
export async function registerDidRoutes(app: App, domain: TrustRegistryDependencies): Promise<void> {
  await app.register(async (scope) => {
    acceptEmptyJsonBody(scope);
    requireLoginToken(scope, domain);
    registerCreateDidRoute(scope, domain);
    registerImportDidRoute(scope, domain);
  });
}
