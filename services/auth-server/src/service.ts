import { readPackageVersion, type ServiceModule } from "@attesto/runtime";
import { buildApp } from "./app.js";
import { type AuthServerConfig, authServerPorts, loadAuthServerConfig } from "./config.js";
import { migrations } from "./store/migrations/index.js";

export const authServer: ServiceModule<AuthServerConfig> = {
  definition: {
    name: "auth-server",
    version: readPackageVersion(import.meta.url),
    migrations,
    // Production dependencies (GrantService over Connect, signer and nonces from config).
    buildApp: (context) => buildApp(context),
  },
  loadConfig: loadAuthServerConfig,
  ports: authServerPorts,
};
