import type { ServiceContext } from "@attesto/runtime/service";
import type { SchemaRegistryConfig } from "./config.js";
import type { SchemaRegistryDependencies } from "./domain/dependencies.js";
import { createCredentialTypeStore } from "./store/credential-type.store.js";

/**
 * The dependencies routes, RPC handlers and start-up share, from the service context; `clock`
 * (default: the system clock) is the time its records are stamped with.
 */
export function createDependencies(
  context: ServiceContext<SchemaRegistryConfig>,
  clock: () => Date = () => new Date(),
): SchemaRegistryDependencies {
  return { repository: createCredentialTypeStore(context.db, clock), registryUrl: context.publicUrl };
}
