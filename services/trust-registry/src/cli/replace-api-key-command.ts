import { loadConfig } from "@attesto/runtime";
import { openDatabase } from "@attesto/store";
import { trustRegistryConfigSchema } from "../config.js";
import { replaceApiKey } from "../domain/replace-api-key.js";
import { createTenantStore } from "../store/tenant.store.js";

/** Only what the command needs, so an operator does not have to provide the service's secrets. */
const zCommandConfig = trustRegistryConfigSchema.pick({
  DATABASE_URL: true,
  DATABASE_SCHEMA: true,
  API_KEY_PREFIX: true,
  API_KEY_ENVIRONMENT: true,
});

export const USAGE = "usage: replace-api-key <tenant>";

/**
 * Revokes every API key of a tenant and prints the new one (once) on `out`. Returns the exit code.
 * Operator action for a leaked or lost key (spec §2.2); never exposed over HTTP.
 */
export async function runReplaceApiKey(
  args: string[],
  env: Record<string, string | undefined>,
  io: { out: (line: string) => void; err: (line: string) => void },
): Promise<number> {
  const [tenant, ...rest] = args;
  if (!tenant || rest.length > 0 || tenant.startsWith("-")) {
    io.err(USAGE);
    return 2;
  }
  const config = loadConfig(zCommandConfig, env);
  const database = openDatabase<unknown>({
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA,
    poolMax: 1,
    applicationName: "trust-registry-cli",
  });
  try {
    const apiKey = await replaceApiKey(
      {
        tenants: createTenantStore(database.db),
        apiKeyFormat: { prefix: config.API_KEY_PREFIX, environment: config.API_KEY_ENVIRONMENT },
      },
      tenant,
    );
    io.out(apiKey);
    return 0;
  } catch (error) {
    io.err(`replace-api-key: ${(error as Error).message}`);
    return 1;
  } finally {
    await database.close();
  }
}
