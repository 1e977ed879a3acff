import { readPackageVersion, type ServiceModule } from "@attesto/runtime";
import { buildApp, registerIssuerRpc } from "./app.js";
import { type CredentialIssuerConfig, credentialIssuerPorts, loadCredentialIssuerConfig } from "./config.js";
import { createIssuerDeps } from "./create-dependencies.js";
import { migrations } from "./store/migrations/index.js";

export const credentialIssuer: ServiceModule<CredentialIssuerConfig> = {
  definition: {
    name: "credential-issuer",
    version: readPackageVersion(import.meta.url),
    migrations,
    buildApp: (context) => buildApp(context),
    rpc: (router, context) => registerIssuerRpc(router, createIssuerDeps(context)),
  },
  loadConfig: loadCredentialIssuerConfig,
  ports: credentialIssuerPorts,
};
