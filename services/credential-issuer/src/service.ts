import { perService, readPackageVersion, type ServiceModule } from "@attesto/runtime";
import { buildApp, registerIssuerRpc } from "./app.js";
import { type CredentialIssuerConfig, credentialIssuerPorts, loadCredentialIssuerConfig } from "./config.js";
import { createIssuerDeps } from "./create-dependencies.js";
import { migrations } from "./store/migrations/index.js";

/** One set of edges per running service, shared by the public app and the internal RPC. */
const depsOf = perService(createIssuerDeps);

export const credentialIssuer: ServiceModule<CredentialIssuerConfig> = {
  definition: {
    name: "credential-issuer",
    version: readPackageVersion(import.meta.url),
    migrations,
    buildApp: (context) => buildApp(context, depsOf(context)),
    rpc: (router, context) => registerIssuerRpc(router, depsOf(context)),
  },
  loadConfig: loadCredentialIssuerConfig,
  ports: credentialIssuerPorts,
};
