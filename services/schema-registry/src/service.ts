import { schemaV1 } from "@attesto/proto";
import { perService, readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp } from "./app.js";
import { loadSchemaRegistryConfig, type SchemaRegistryConfig, schemaRegistryPorts } from "./config.js";
import { createDependencies } from "./dependencies.js";
import { seedCredentialTypes } from "./domain/seed-credential-types.js";
import { SchemaServiceRpc } from "./rpc/schema-service.rpc.js";
import { migrations } from "./store/migrations/index.js";
import { readSeedFiles } from "./store/read-seed-files.js";

/** One set of edges per running service, shared by the public app, the internal RPC and start-up work. */
export const dependenciesOf = perService(createDependencies);

/** Start-up: load the seed directory into the catalogue (idempotent; a bad seed fails start-up). */
async function loadSeeds(context: ServiceContext<SchemaRegistryConfig>): Promise<void> {
  const files = await readSeedFiles(context.config.SCHEMA_SEEDS_DIR);
  await seedCredentialTypes(files, dependenciesOf(context).repository);
}

export const schemaRegistry: ServiceModule<SchemaRegistryConfig> = {
  definition: {
    name: "schema-registry",
    version: readPackageVersion(import.meta.url),
    migrations,
    buildApp: (context) => buildApp(context, dependenciesOf(context)),
    init: loadSeeds,
    rpc(router, context) {
      router.service(schemaV1.SchemaService, new SchemaServiceRpc(dependenciesOf(context)));
    },
  },
  loadConfig: loadSchemaRegistryConfig,
  ports: schemaRegistryPorts,
};
