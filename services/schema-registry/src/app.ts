import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { SchemaRegistryConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { SchemaRegistryDependencies } from "./domain/ports.js";
import { registerGetSchemaRoute } from "./routes/get-schema.route.js";
import { registerListSchemasRoute } from "./routes/list-schemas.route.js";
import { registerRedirectLegacySchemaRoute } from "./routes/redirect-legacy-schema.route.js";

/** The schema registry's public API (this service's README). */
export async function buildApp(
  context: ServiceContext<SchemaRegistryConfig>,
  dependencies: SchemaRegistryDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  registerListSchemasRoute(app, dependencies);
  registerGetSchemaRoute(app, dependencies);
  registerRedirectLegacySchemaRoute(app);
  return app;
}
