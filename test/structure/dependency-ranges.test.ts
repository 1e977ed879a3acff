import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/**
 * One version range per package across the workspaces: two manifests asking for different ranges
 * of one package (`^0.28.8` here, `^0.28.18` there) say different things about what was tested.
 * (Which packages are declared where is `npm run check:deps`, knip, a step of `.ci/run`.)
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Manifest {
  workspaces?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const read = (path: string): Manifest => JSON.parse(readFileSync(join(repoRoot, path), "utf8")) as Manifest;

/** The root manifest and every workspace's (`services/lib/*` expanded). */
function manifests(): string[] {
  const folders = (read("package.json").workspaces ?? []).flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(repoRoot, parent))
      .filter((name) => existsSync(join(repoRoot, parent, name, "package.json")))
      .map((name) => `${parent}/${name}`);
  });
  return ["package.json", ...folders.map((folder) => `${folder}/package.json`)];
}

it("every package is asked for with one version range in every workspace", () => {
  const ranges = new Map<string, Map<string, string[]>>();
  for (const path of manifests()) {
    const manifest = read(path);
    for (const section of [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies]) {
      for (const [name, range] of Object.entries(section ?? {})) {
        const byRange = ranges.get(name) ?? new Map<string, string[]>();
        byRange.set(range, [...(byRange.get(range) ?? []), path]);
        ranges.set(name, byRange);
      }
    }
  }
  expect(manifests().length).toBeGreaterThan(10);
  const differing = [...ranges]
    .filter(([, byRange]) => byRange.size > 1)
    .map(([name, byRange]) => ({ name, ranges: Object.fromEntries(byRange) }));
  expect(differing).toEqual([]);
});
