import { readPackageVersion, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type AuthServerConfig, authServerPorts, loadAuthServerConfig } from "./config.js";
import { registerAuthServerRpc } from "./rpc/register-auth-server-rpc.js";
import { createAuthorizationCodeStore } from "./store/authorization-code.store.js";
import { migrations } from "./store/migrations/index.js";

export const authServer: ServiceModule<AuthServerConfig> = {
  definition: {
    name: "auth-server",
    version: readPackageVersion(import.meta.url),
    migrations,
    // GET /ready needs these peers (credential-issuer: pre-authorized codes are redeemed there).
    readinessPeers: (config) => ({ "credential-issuer": config.CREDENTIAL_ISSUER_INTERNAL_URL }),
    // Production dependencies (GrantService over Connect, signer and nonces from config).
    buildApp: (context) => buildApp(context),
    // TokenStatusService for the credential issuer (revoked access tokens).
    rpc: (router, context) =>
      registerAuthServerRpc(router, { authorizationCodes: createAuthorizationCodeStore(context.db) }),
  },
  loadConfig: loadAuthServerConfig,
  ports: authServerPorts,
};
