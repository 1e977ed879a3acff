import { notaryV1 } from "@attesto/proto";
import { createRpcClient, createServiceCredentialSigner } from "@attesto/runtime";
import { runDeadLetters } from "./dead-letters-command.js";

/**
 * Operator CLI (README "Dead letters"):
 *   SCHEDULER_INTERNAL_URL=http://localhost:9087 SERVICE_AUTH_SECRET=... \
 *     npx tsx services/scheduler/src/cli/dead-letters.ts list|retry ...
 */
const secret = process.env.SERVICE_AUTH_SECRET ?? "";
if (secret.length < 32) {
  console.error("dead-letters: SERVICE_AUTH_SECRET (at least 32 characters) is required");
  process.exit(2);
}
const notary = createRpcClient(notaryV1.NotaryService, {
  baseUrl: process.env.SCHEDULER_INTERNAL_URL ?? "http://localhost:9087",
  audience: "scheduler",
  signer: createServiceCredentialSigner({ secret, caller: "operator" }),
  timeoutMs: 30_000,
});
process.exitCode = await runDeadLetters(process.argv.slice(2), notary, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
