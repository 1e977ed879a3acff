import { schemaV1 } from "@attesto/proto";
import { readPackageVersion, type ServiceContext, type ServiceModule } from "@attesto/runtime/service";
import { buildApp, createDependencies } from "./app.js";
import { loadSchemaRegistryConfig, type SchemaRegistryConfig, schemaRegistryPorts } from "./config.js";
import { seedCredentialTypes } from "./domain/seed-credential-types.js";
import { SchemaServiceRpc } from "./rpc/schema-service.rpc.js";
import { createCredentialTypeStore } from "./store/credential-type.store.js";
import { migrations } from "./store/migrations/index.js";
import { readSeedFiles } from "./store/read-seed-files.js";

/** Start-up: load the seed directory into the catalogue (idempotent; a bad seed fails start-up). */
async function loadSeeds(context: ServiceContext<SchemaRegistryConfig>): Promise<void> {
  const files = await readSeedFiles(context.config.SCHEMA_SEEDS_DIR);
  await seedCredentialTypes(files, createCredentialTypeStore(context.db));
}

export const schemaRegistry: ServiceModule<SchemaRegistryConfig> = {
  definition: {
    name: "schema-registry",
    version: readPackageVersion(import.meta.url),
    migrations,
    buildApp,
    init: loadSeeds,
    rpc(router, context) {
      router.service(schemaV1.SchemaService, new SchemaServiceRpc(createDependencies(context)));
    },
  },
  loadConfig: loadSchemaRegistryConfig,
  ports: schemaRegistryPorts,
};
