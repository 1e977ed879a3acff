import { tenantV1 } from "@attesto/proto";
import {
  type Clock,
  perService,
  readPackageVersion,
  type ServiceContext,
  type ServiceModule,
} from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { loadTrustRegistryConfig, type TrustRegistryConfig, trustRegistryPorts } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { TrustRegistryDependencies } from "./domain/ports.js";
import { registerKeyCustodyRpc } from "./rpc/key-custody-service.rpc.js";
import { TenantServiceRpc } from "./rpc/tenant-service.rpc.js";
import { migrations } from "./store/migrations/index.js";
import { sealedColumns } from "./store/sealed-columns.js";

export interface TrustRegistryModuleOptions {
  /**
   * The time key custody and the use cases read (certificate validity, expiry) instead of the
   * context's clock: the launcher's contexts carry the system clock, tests of the whole platform move this one.
   */
  clock?: Clock;
}

/**
 * The trust registry as a service module. `dependenciesOf` builds the use cases' dependencies once
 * per running service, shared by the public app, the internal RPC and start-up work.
 */
export function createTrustRegistryModule(options: TrustRegistryModuleOptions = {}): {
  module: ServiceModule<TrustRegistryConfig>;
  dependenciesOf: (context: ServiceContext<TrustRegistryConfig>) => TrustRegistryDependencies;
} {
  const dependenciesOf = perService((context: ServiceContext<TrustRegistryConfig>) =>
    createDependencies(context, options.clock ? { clock: options.clock } : {}),
  );
  const module: ServiceModule<TrustRegistryConfig> = {
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
      buildApp: (context) => buildApp(context, dependenciesOf(context)),
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
        const deps = dependenciesOf(context);
        router.service(tenantV1.TenantService, new TenantServiceRpc(deps));
        registerKeyCustodyRpc(router, deps.custody);
      },
    },
    loadConfig: loadTrustRegistryConfig,
    ports: trustRegistryPorts,
  };
  return { module, dependenciesOf };
}

const standard = createTrustRegistryModule();

/** One set of dependencies per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = standard.dependenciesOf;

export const trustRegistry: ServiceModule<TrustRegistryConfig> = standard.module;
