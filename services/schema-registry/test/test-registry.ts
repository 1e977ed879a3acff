import { fileURLToPath } from "node:url";
import type { App } from "@attesto/runtime/http";
import { createServiceContext, type ServiceContext } from "@attesto/runtime/service";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { buildApp } from "../src/app.js";
import { loadSchemaRegistryConfig, type SchemaRegistryConfig } from "../src/config.js";
import { schemaRegistry } from "../src/service.js";
import { migrations } from "../src/store/migrations/index.js";

export const PUBLIC_URL = "http://localhost:8086";
/** Extra seeds used by some suites: a draft type and a deprecated older diploma version. */
export const EXTRA_SEEDS_DIR = fileURLToPath(new URL("./fixtures/extra-seeds/", import.meta.url));

export interface TestRegistry {
  database: TestDatabase<unknown>;
  context: ServiceContext<SchemaRegistryConfig>;
  app: App;
  /** Runs the service's start-up seeding again, from `seedsDir` (the built-in seeds by default). */
  seed(seedsDir?: string): Promise<void>;
  close(): Promise<void>;
}

export function contextFor(database: TestDatabase<unknown>, seedsDir?: string): ServiceContext<SchemaRegistryConfig> {
  const config = loadSchemaRegistryConfig({
    DATABASE_URL: database.url,
    ...testIdentityEnv("schema-registry"),
    PUBLIC_URL,
    LOG_LEVEL: "silent",
    SCHEMA_SEEDS_DIR: seedsDir,
  });
  return createServiceContext(schemaRegistry.definition, config, database.db);
}

/** The schema registry on its own test schema, seeded as at start-up, with its app ready for inject(). */
export async function startTestRegistry(): Promise<TestRegistry> {
  const database = await createTestDatabase<unknown>({ prefix: "schema_registry", migrations });
  const context = contextFor(database);
  const seed = async (seedsDir?: string) => {
    await schemaRegistry.definition.init!(contextFor(database, seedsDir));
  };
  await seed();
  const app = await buildApp(context);
  return {
    database,
    context,
    app,
    seed,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
