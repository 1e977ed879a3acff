import { perService, readPackageVersion, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { type CredentialIssuerConfig, credentialIssuerPorts, loadCredentialIssuerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { recordEarlierIssuerKeys } from "./domain/record-earlier-issuer-keys.js";
import { registerIssuerRpc } from "./rpc/register-issuer-rpc.js";
import { migrations } from "./store/migrations/index.js";
import { sealedColumns } from "./store/sealed-columns.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

export const credentialIssuer: ServiceModule<CredentialIssuerConfig> = {
  definition: {
    name: "credential-issuer",
    version: readPackageVersion(import.meta.url),
    migrations,
    sealedColumns,
    // GET /ready needs these peers (trust-registry: API keys, signing keys; schema-registry: credential types; ledger: status and DIDs).
    readinessPeers: (config) => ({
      "trust-registry": config.TRUST_REGISTRY_INTERNAL_URL,
      "schema-registry": config.SCHEMA_REGISTRY_INTERNAL_URL,
      ledger: config.LEDGER_INTERNAL_URL,
    }),
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
    rpc: (router, context) => registerIssuerRpc(router, dependenciesOf(context)),
    async init(context) {
      const { recorded, unreadable } = await recordEarlierIssuerKeys(dependenciesOf(context));
      if (recorded > 0 || unreadable > 0) {
        context.logger.info(
          { recorded, unreadable },
          "recorded the DID-path signing keys of earlier offers (unreadable: sealed under a retired key-encryption key)",
        );
      }
    },
  },
  loadConfig: loadCredentialIssuerConfig,
  ports: credentialIssuerPorts,
};
