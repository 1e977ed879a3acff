#!/usr/bin/env node
// `npm start`: the all-in-one as compiled JavaScript under plain `node`. The runtime tree (the same
// build as `npm run build`, compile.ts) is made in dist/start/<fingerprint> the first time and again
// whenever a source changed; every other start imports it straight away. Running the TypeScript
// sources under tsx instead costs a loader process, ~80 MiB of RSS and seconds of transpiling on
// every start (README, "Performance").
//
// The fingerprint covers every file the runtime tree is made from (path, size, modification time):
// services/, operator/ and cli/ without their tests, node_modules and dist, plus hack/build itself.
// Plain JavaScript on purpose: it must run before anything is compiled.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const INPUTS = ["services", "operator", "cli", "hack/build"];
/** What compile.ts leaves out of the tree, so changing it never calls for a build. */
const SKIPPED_DIRS = new Set(["node_modules", "test", "dist", "examples"]);
const ENTRY = "services/all-in-one/src/main.js";

export function sourceFingerprint(root) {
  const lines = [];
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) visit(path);
      } else if (!entry.name.endsWith(".test.ts")) {
        const { size, mtimeMs } = statSync(path);
        lines.push(`${relative(root, path)} ${size} ${mtimeMs}`);
      }
    }
  };
  for (const input of INPUTS) visit(join(root, input));
  return createHash("sha256").update(lines.sort().join("\n")).digest("hex").slice(0, 16);
}

/** The runtime tree for the current sources: built (into a temporary folder, then renamed) when missing. */
export function ensureRuntimeTree(root) {
  const base = join(root, "dist", "start");
  const tree = join(base, sourceFingerprint(root));
  if (existsSync(join(tree, ENTRY))) return tree;
  process.stderr.write("Compiling the TypeScript sources (after a change only) ...\n");
  const building = `${tree}.building-${process.pid}`;
  const build = spawnSync(process.execPath, ["--import", "tsx", "hack/build/main.ts", building], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (build.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    process.stderr.write(`npm start: compiling failed (exit ${build.status ?? build.signal})\n`);
    process.exit(1);
  }
  try {
    renameSync(building, tree);
  } catch {
    // Another `npm start` built the same sources first.
    rmSync(building, { recursive: true, force: true });
  }
  // Trees of older sources go (a platform still running from one keeps its loaded modules).
  for (const entry of readdirSync(base)) {
    if (join(base, entry) !== tree && !entry.includes(".building-"))
      rmSync(join(base, entry), { recursive: true, force: true });
  }
  return tree;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tree = ensureRuntimeTree(repoRoot);
  await import(pathToFileURL(join(tree, ENTRY)).href);
}
