import { perService, readPackageVersion, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type AuthServerConfig, authServerPorts, loadAuthServerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { registerAuthServerRpc } from "./rpc/register-auth-server-rpc.js";
import { migrations } from "./store/migrations/index.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

export const authServer: ServiceModule<AuthServerConfig> = {
  definition: {
    name: "auth-server",
    version: readPackageVersion(import.meta.url),
    migrations,
    // GET /ready needs these peers (credential-issuer: pre-authorized codes are redeemed there).
    readinessPeers: (config) => ({ "credential-issuer": config.CREDENTIAL_ISSUER_INTERNAL_URL }),
    // Production dependencies (GrantService over Connect, signer and nonces from config).
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
    // TokenStatusService for the credential issuer (revoked access tokens).
    rpc: (router, context) =>
      registerAuthServerRpc(router, { authorizationCodes: dependenciesOf(context).authorizationCodes }),
  },
  loadConfig: loadAuthServerConfig,
  ports: authServerPorts,
};
