import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import madge from "madge";
import { expect, it } from "vitest";

/**
 * No import cycle, `import type` included, in the packages that have none (`npm run check:cycles`
 * in `.ci/run` checks every package for runtime cycles, type-only imports skipped). A port declared
 * beside the use case that needs it, while the dependencies type imports it back, is such a cycle:
 * ports go to `domain/ports.ts`.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const WITHOUT_CYCLES = [
  "services/auth-server/src",
  "services/credential-issuer/src",
  "services/holder/src",
  "services/ledger/src",
  "services/schema-registry/src",
  "services/scheduler/src",
  "services/trust-registry/src",
  "services/verifier/src",
  "services/all-in-one/src",
  "services/lib/runtime/src",
  "services/lib/protocol/src",
  "services/lib/store/src",
  "services/lib/tenant-client/src",
  "operator/src",
  "cli/src",
];

it.each(WITHOUT_CYCLES)("%s has no import cycle, type imports included", { timeout: 60_000 }, async (folder) => {
  const graph = await madge(resolve(repoRoot, folder), {
    fileExtensions: ["ts"],
    tsConfig: resolve(repoRoot, "tsconfig.json"),
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  expect(graph.circular()).toEqual([]);
});
