import type { ServiceContext } from "@attesto/runtime/service";
import type { SchemaRegistryConfig } from "./config.js";
import type { SchemaRegistryDependencies } from "./domain/ports.js";
import { createCredentialTypeStore } from "./store/credential-type.store.js";

/**
 * The dependencies routes, RPC handlers and start-up share, from the service context: records are
 * stamped with the context's clock; `overrides` replace single edges (tests).
 */
export function createDependencies(
  context: ServiceContext<SchemaRegistryConfig>,
  overrides: Partial<SchemaRegistryDependencies> = {},
): SchemaRegistryDependencies {
  return {
    repository: overrides.repository ?? createCredentialTypeStore(context.db, context.clock),
    registryUrl: overrides.registryUrl ?? context.publicUrl,
  };
}
