import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { SchemaRegistryConfig } from "./config.js";
import type { SchemaRegistryDependencies } from "./domain/dependencies.js";
import { registerGetSchemaRoute } from "./routes/get-schema.route.js";
import { registerListSchemasRoute } from "./routes/list-schemas.route.js";
import { registerRedirectLegacySchemaRoute } from "./routes/redirect-legacy-schema.route.js";
import { createCredentialTypeStore } from "./store/credential-type.store.js";

/** The dependencies routes and RPC handlers share, from the service context. */
export function createDependencies(context: ServiceContext<SchemaRegistryConfig>): SchemaRegistryDependencies {
  return { repository: createCredentialTypeStore(context.db), registryUrl: context.publicUrl };
}

export async function buildApp(context: ServiceContext<SchemaRegistryConfig>): Promise<App> {
  const app = await createServiceApp(context);
  const dependencies = createDependencies(context);
  registerListSchemasRoute(app, dependencies);
  registerGetSchemaRoute(app, dependencies);
  registerRedirectLegacySchemaRoute(app);
  return app;
}
