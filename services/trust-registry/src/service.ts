import { tenantV1 } from "@attesto/proto";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { loadTrustRegistryConfig, type TrustRegistryConfig, trustRegistryPorts } from "./config.js";
import { createDependencies, createDomain } from "./dependencies.js";
import { registerKeyCustodyRpc } from "./rpc/key-custody-service.rpc.js";
import { TenantServiceRpc } from "./rpc/tenant-service.rpc.js";
import { migrations } from "./store/migrations/index.js";
import { sealedColumns } from "./store/sealed-columns.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

/** The use cases, built once per running service and shared by the public app and the internal RPC. */
const domainOf = perService((context: ServiceContext<TrustRegistryConfig>) =>
  createDomain(context, dependenciesOf(context)),
);

export const trustRegistry: ServiceModule<TrustRegistryConfig> = {
  definition: {
    name: "trust-registry",
    version: readPackageVersion(import.meta.url),
    migrations,
    sealedColumns,
    // GET /ready needs these peers (schema-registry: credential types; ledger: DID documents).
    readinessPeers: (config) => ({
      "schema-registry": config.SCHEMA_REGISTRY_INTERNAL_URL,
      ledger: config.LEDGER_INTERNAL_URL,
    }),
    buildApp: (context) => buildApp(context, dependenciesOf(context), domainOf(context)),
    // Custody keys under an older KEK, or still in the former column layout, are resealed at start-up.
    async init(context) {
      try {
        await dependenciesOf(context).custody.rewrapKeys();
      } catch (error) {
        // A key that does not open fails where it is used; the others still serve.
        context.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "custody keys could not all be rewrapped under the current key-encryption key",
        );
      }
    },
    rpc(router, context) {
      router.service(tenantV1.TenantService, new TenantServiceRpc(domainOf(context)));
      registerKeyCustodyRpc(router, dependenciesOf(context).custody);
    },
  },
  loadConfig: loadTrustRegistryConfig,
  ports: trustRegistryPorts,
};
