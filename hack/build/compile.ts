/**
 * The one build of the runtime file tree: every workspace that runs in production (services/**,
 * operator/, cli/) transpiled to JavaScript with TypeScript's own transpiler (the repo sets
 * isolatedModules, so per-file transpilation is exact), laid out as in the repository:
 *
 *   <out>/services/<svc>/package.json   `exports` pointing at .js
 *   <out>/services/<svc>/src/**.js       (tests and .d.ts left out)
 *   <out>/services/<svc>/<data folders>  e.g. the schema registry's seeds/, read through import.meta.url
 *   <out>/operator/...
 *   <out>/node_modules/@attesto/<pkg>    relative links to the workspaces above (the links npm makes)
 *
 * so the services run under plain `node` without the tsx loader (which costs ~45 MB of RSS per
 * process and a loader thread). Third-party packages resolve from the node_modules above <out>
 * (the repository's) or, in the image, from the `npm ci --omit=dev` tree the Dockerfile copies
 * <out> over. Used by `npm run build` (dist/app, the Dockerfile), hack/bench (dist/bench) and
 * test/build/runtime-tree.test.ts and `npm start` (dist/start, hack/build/start.mjs); `npm test` runs the
 * TypeScript sources.
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
const SKIPPED = new Set(["node_modules", "test", "dist", "examples"]);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (SKIPPED.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts") && !entry.endsWith(".d.ts")) yield path;
  }
}

const isWorkspace = (dir: string) => statSync(join(dir, "package.json"), { throwIfNoEntry: false }) !== undefined;

/** The workspaces that run in production: those under services/ (with a package.json) and the operator. */
export function runtimeWorkspaces(repoRoot: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (!statSync(path).isDirectory() || SKIPPED.has(entry)) continue;
      if (isWorkspace(path)) found.push(path);
      else if (depth > 0) visit(path, depth - 1);
    }
  };
  visit(join(repoRoot, "services"), 1);
  // The operator, and the CLI (the all-in-one applies ATTESTO_CONFIG_DIR through it).
  found.push(join(repoRoot, "operator"), join(repoRoot, "cli"));
  return found;
}

/** One TypeScript file transpiled to `output` (its folder is created). */
export function transpileFile(source: string, output: string): void {
  const { outputText } = ts.transpileModule(readFileSync(source, "utf8"), {
    compilerOptions: COMPILER_OPTIONS,
    fileName: source,
  });
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, outputText);
}

/** Builds the runtime file tree into `outRoot` (emptied first) and returns it. */
export function buildRuntimeTree(repoRoot: string, outRoot: string): string {
  rmSync(outRoot, { recursive: true, force: true });
  const links = join(outRoot, "node_modules", "@attesto");
  mkdirSync(links, { recursive: true });
  let files = 0;
  for (const workspace of runtimeWorkspaces(repoRoot)) {
    const target = join(outRoot, relative(repoRoot, workspace));
    const manifest = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")) as {
      name: string;
      exports?: Record<string, string>;
      scripts?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const exports = Object.fromEntries(
      Object.entries(manifest.exports ?? {}).map(([key, value]) => [key, value.replace(/\.ts$/, ".js")]),
    );
    const { scripts: _scripts, devDependencies: _dev, ...runtimeManifest } = manifest;
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "package.json"), `${JSON.stringify({ ...runtimeManifest, exports }, null, 2)}\n`);
    for (const source of sourceFiles(join(workspace, "src"))) {
      const output = join(target, relative(workspace, source)).replace(/\.ts$/, ".js");
      mkdirSync(dirname(output), { recursive: true });
      transpileFile(source, output);
      files++;
    }
    // Data folders next to src (schema seeds) are read through import.meta.url. Not bin/: the CLI's
    // launcher loads the TypeScript sources through tsx (in the tree: node cli/src/main.js).
    for (const entry of readdirSync(workspace)) {
      if (["src", "bin", "package.json", "README.md", "tsconfig.json", ...SKIPPED].includes(entry)) continue;
      if (statSync(join(workspace, entry)).isDirectory())
        cpSync(join(workspace, entry), join(target, entry), { recursive: true });
    }
    if (manifest.name.startsWith("@attesto/")) {
      const link = join(links, manifest.name.slice("@attesto/".length));
      symlinkSync(relative(dirname(link), target), link, "dir");
    }
  }
  if (files === 0) throw new Error("buildRuntimeTree: no TypeScript sources found");
  return outRoot;
}
