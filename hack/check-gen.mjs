#!/usr/bin/env node
// Fails when services/lib/proto/src/gen is not what `npm run gen` makes from proto/ (CI runs this).
// The generator runs in a temporary copy of the inputs, so the working tree is never modified;
// the result is compared with the working tree, and generated files git does not yet have
// (untracked, or changed and not staged) are reported too.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const GEN_DIR = "services/lib/proto/src/gen";
const INPUTS = ["proto", "package.json", "biome.json", ".gitignore"];

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

function generate(workDir) {
  for (const input of INPUTS) {
    if (existsSync(join(root, input))) cpSync(join(root, input), join(workDir, input), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(workDir, "node_modules"), "dir");
  const result = spawnSync("npm", ["run", "--silent", "gen"], { cwd: workDir, encoding: "utf8" });
  if (result.status !== 0) {
    console.error(`check-gen: \`npm run gen\` failed (exit ${result.status ?? result.signal}):`);
    console.error(`${result.stdout ?? ""}${result.stderr ?? result.error ?? ""}`.trim());
    process.exit(1);
  }
  return join(workDir, GEN_DIR);
}

/** Generated files with changes git does not have: untracked, or modified and not staged. */
function uncommitted() {
  const result = spawnSync("git", ["status", "--porcelain", "--untracked-files=all", "--", GEN_DIR], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) return [];
  return result.stdout
    .split("\n")
    .filter((line) => line.startsWith("??") || (line.length > 1 && line[1] !== " "))
    .map((line) => line.slice(3));
}

const workDir = mkdtempSync(join(tmpdir(), "attesto-check-gen-"));
try {
  const generatedDir = generate(workDir);
  const committedDir = join(root, GEN_DIR);
  const generated = listFiles(generatedDir);
  const present = new Set(listFiles(committedDir));
  const changed = generated.filter(
    (file) =>
      present.has(file) && !readFileSync(join(generatedDir, file)).equals(readFileSync(join(committedDir, file))),
  );
  const missing = generated.filter((file) => !present.has(file));
  const orphaned = [...present].filter((file) => !generated.includes(file));
  const notInGit = uncommitted();

  const problems = [
    ...changed.map((file) => `  changed:      ${GEN_DIR}/${file}`),
    ...missing.map((file) => `  missing:      ${GEN_DIR}/${file}`),
    ...orphaned.map((file) => `  no proto for: ${GEN_DIR}/${file}`),
    ...notInGit.map((file) => `  not in git:   ${file}`),
  ];
  if (problems.length > 0) {
    console.error("check-gen: generated protobuf code is stale (it does not match proto/):");
    console.error(problems.join("\n"));
    console.error("Run `npm run gen` and commit services/lib/proto/src/gen.");
    process.exit(1);
  }
  console.log(`check-gen: generated protobuf code is up to date (${generated.length} files).`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
