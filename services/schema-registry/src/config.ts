import { fileURLToPath } from "node:url";
import { baseConfigShape, loadConfig } from "@attesto/runtime/config";
import { z } from "zod";

export const schemaRegistryPorts = { public: 8086, internal: 9086 };

/** The seeds shipped with the service (services/schema-registry/seeds). */
export const builtInSeedsDir = fileURLToPath(new URL("../seeds/", import.meta.url));

export const schemaRegistryConfigSchema = z.object({
  ...baseConfigShape({
    port: schemaRegistryPorts.public,
    internalPort: schemaRegistryPorts.internal,
    databaseSchema: "schema_registry",
  }),
  /** Directory of credential type seed files (`*.json`), loaded idempotently at start-up. */
  SCHEMA_SEEDS_DIR: z.string().min(1).default(builtInSeedsDir),
});

export type SchemaRegistryConfig = z.infer<typeof schemaRegistryConfigSchema>;

export const loadSchemaRegistryConfig = (env: Record<string, string | undefined>): SchemaRegistryConfig =>
  loadConfig(schemaRegistryConfigSchema, env);
