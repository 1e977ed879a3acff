import { resolve } from "node:path";
import madge from "madge";
import { expect, it } from "vitest";
import { PACKAGES, repoRoot } from "./packages.js";

/**
 * No import cycle in any package, `import type` included (`npm run check:cycles` in `.ci/run`
 * checks runtime imports only). A port declared beside the use case that needs it, while the
 * dependencies type imports it back, is such a cycle: ports go to `domain/ports.ts`.
 */
it.each(PACKAGES.map((pkg) => `${pkg}/src`))(
  "%s has no import cycle, type imports included",
  { timeout: 60_000 },
  async (folder) => {
    const graph = await madge(resolve(repoRoot, folder), {
      fileExtensions: ["ts"],
      tsConfig: resolve(repoRoot, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
    expect(graph.circular()).toEqual([]);
  },
);
