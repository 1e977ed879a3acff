/**
 * Compiled JavaScript for the bench's service processes (BENCH_RUNTIME=compiled, the default): every
 * workspace under services/ transpiled to dist/bench/ with TypeScript's own transpiler (the repo
 * sets isolatedModules, so per-file transpilation is exact), the workspaces' package.json copied
 * with `exports` pointing at .js, and dist/bench/node_modules/@attesto/* linking them, so the
 * services run under plain `node` without the tsx loader (which costs ~45 MB of RSS per process
 * and a loader thread). Everything else resolves from the repository's node_modules.
 * `npm start` and `npm test` are unaffected: they keep running the TypeScript sources.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  sourceMap: false,
};

/** Folders of a workspace that are never needed at run time. */
const SKIPPED = new Set(["node_modules", "test", "dist"]);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (SKIPPED.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts") && !entry.endsWith(".d.ts")) yield path;
  }
}

/** The workspaces under services/ (those with a package.json). */
function workspaces(repoRoot: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (!statSync(path).isDirectory() || SKIPPED.has(entry)) continue;
      if (statSync(join(path, "package.json"), { throwIfNoEntry: false })) found.push(path);
      else if (depth > 0) visit(path, depth - 1);
    }
  };
  visit(join(repoRoot, "services"), 1);
  return found;
}

/** Transpiles the services into `<repoRoot>/dist/bench` and returns that folder. */
export function compileServices(repoRoot: string): string {
  const outRoot = join(repoRoot, "dist", "bench");
  rmSync(outRoot, { recursive: true, force: true });
  const links = join(outRoot, "node_modules", "@attesto");
  mkdirSync(links, { recursive: true });
  let files = 0;
  for (const workspace of workspaces(repoRoot)) {
    const target = join(outRoot, relative(repoRoot, workspace));
    const manifest = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")) as {
      name: string;
      exports?: Record<string, string>;
    };
    const exports = Object.fromEntries(
      Object.entries(manifest.exports ?? {}).map(([key, value]) => [key, value.replace(/\.ts$/, ".js")]),
    );
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "package.json"), JSON.stringify({ ...manifest, exports }, null, 2));
    for (const source of sourceFiles(join(workspace, "src"))) {
      const output = join(target, relative(workspace, source)).replace(/\.ts$/, ".js");
      mkdirSync(dirname(output), { recursive: true });
      const { outputText } = ts.transpileModule(readFileSync(source, "utf8"), {
        compilerOptions: COMPILER_OPTIONS,
        fileName: source,
      });
      writeFileSync(output, outputText);
      files++;
    }
    // Data folders next to src (schema seeds) are read through import.meta.url.
    for (const entry of readdirSync(workspace)) {
      if (["src", "package.json", "README.md", ...SKIPPED].includes(entry)) continue;
      if (statSync(join(workspace, entry)).isDirectory())
        cpSync(join(workspace, entry), join(target, entry), { recursive: true });
    }
    if (manifest.name.startsWith("@attesto/")) {
      symlinkSync(target, join(links, manifest.name.slice("@attesto/".length)), "dir");
    }
  }
  if (files === 0) throw new Error("compileServices: no TypeScript sources found under services/");
  return outRoot;
}
