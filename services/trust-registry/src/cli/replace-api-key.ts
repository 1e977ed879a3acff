/**
 * Replaces a tenant's API key (operator action):
 *   DATABASE_URL=postgres://... npx tsx services/trust-registry/src/cli/replace-api-key.ts <tenant>
 * Prints the new key once on stdout; every earlier key of the tenant is revoked.
 */
import { ConfigError } from "@attesto/runtime";
import { runReplaceApiKey } from "./replace-api-key-command.js";

try {
  process.exitCode = await runReplaceApiKey(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`replace-api-key: ${error.message}\n`);
  process.exitCode = 2;
}
