import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import net from "node:net";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { testIdentityEnv } from "@attesto/runtime/testing";
import { openDatabase, testDatabaseUrl } from "@attesto/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildRuntimeTree, runtimeWorkspaces } from "../../hack/build/compile.js";
import { ALL_IN_ONE_NODE_FLAGS } from "../../hack/build/node-flags.mjs";

/**
 * The production image's file tree, built without Docker by the same build the Dockerfile runs
 * (`npm run build` -> hack/build/compile.ts), then one service started from it with plain `node`
 * (no tsx): it must answer /health and /ready (database and migrations) on its public port.
 */
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const outRoot = join(repoRoot, "dist", `test-runtime-${randomBytes(4).toString("hex")}`);

function* javascriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* javascriptFiles(path);
    else if (path.endsWith(".js")) yield path;
  }
}

/** The workspace (folder with a package.json) a built file belongs to. */
function workspaceOf(file: string): string {
  let dir = join(file, "..");
  while (!statSync(join(dir, "package.json"), { throwIfNoEntry: false })) dir = join(dir, "..");
  return dir;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm;
const packageNameOf = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the runtime file tree (npm run build, as the Dockerfile builds it)", () => {
  beforeAll(() => {
    buildRuntimeTree(repoRoot, outRoot);
  }, 120_000);
  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it("holds only JavaScript that imports its own workspace's production dependencies", () => {
    const problems: string[] = [];
    let files = 0;
    for (const file of javascriptFiles(outRoot)) {
      files++;
      const manifest = JSON.parse(readFileSync(join(workspaceOf(file), "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
      };
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? match[3]!;
        if (specifier.startsWith(".")) {
          if (specifier.endsWith(".ts")) problems.push(`${relative(outRoot, file)} imports ${specifier}`);
          continue;
        }
        if (specifier.startsWith("node:") || builtinModules.includes(specifier)) continue;
        // `npm ci --omit=dev` in the image installs dependencies only: a devDependency is missing there.
        if (!manifest.dependencies?.[packageNameOf(specifier)]) {
          problems.push(`${relative(outRoot, file)} imports ${specifier}, not a dependency of its package.json`);
        }
      }
    }
    expect(files).toBeGreaterThan(200);
    expect(problems).toEqual([]);
    expect(readdirSync(outRoot).sort()).toEqual(["cli", "node_modules", "operator", "services"]);
  });

  it("is what the Dockerfile builds and runs: every workspace manifest, npm run build, node on .js", () => {
    const dockerfile = readFileSync(join(repoRoot, "Dockerfile"), "utf8");
    for (const workspace of runtimeWorkspaces(repoRoot)) {
      const manifest = `${relative(repoRoot, workspace)}/package.json`;
      expect(dockerfile, manifest).toContain(`COPY ${manifest} ${relative(repoRoot, workspace)}/`);
    }
    expect(dockerfile).toMatch(/RUN npm ci [^\n]*&& npm run build/);
    expect(dockerfile).toMatch(/RUN npm ci --omit=dev/);
    expect(dockerfile).toContain("COPY --from=build /src/dist/app/ ./");
    expect(dockerfile).toMatch(/^USER 10001:10001$/m);
    // The all-in-one's V8 flags (hack/build/node-flags.mjs), here and in `npm start`.
    const flags = ALL_IN_ONE_NODE_FLAGS.map((flag) => `"${flag}", `).join("");
    expect(dockerfile).toContain(`CMD ["node", ${flags}"services/all-in-one/src/main.js"]`);
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    expect(manifest.scripts.start).toBe(["node", ...ALL_IN_ONE_NODE_FLAGS, "hack/build/start.mjs"].join(" "));
    const instructions = dockerfile.split("\n").filter((line) => !line.startsWith("#"));
    expect(instructions.join("\n")).not.toMatch(/tsx/);
    const ignored = readFileSync(join(repoRoot, ".dockerignore"), "utf8").split("\n");
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "dist", ".attesto", ".git"]));
  });

  describe("one service started from it with plain node", () => {
    const schema = `runtime_tree_${randomBytes(4).toString("hex")}`;
    let child: ChildProcess;
    let output = "";
    let base: string;

    beforeAll(async () => {
      const [port, internalPort] = [await freePort(), await freePort()];
      base = `http://127.0.0.1:${port}`;
      child = spawn(process.execPath, [join(outRoot, "services", "schema-registry", "src", "main.js")], {
        cwd: outRoot,
        env: {
          PATH: process.env.PATH,
          HOST: "127.0.0.1",
          PORT: String(port),
          INTERNAL_PORT: String(internalPort),
          DATABASE_URL: testDatabaseUrl(),
          DATABASE_SCHEMA: schema,
          ...testIdentityEnv("schema-registry"),
          LOG_LEVEL: "info",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      const exited = new Promise<never>((_, reject) =>
        child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`))),
      );
      // Not listening yet: the fetch throws, and waitFor tries again (the hook's own timeout bounds it).
      const listening = vi.waitFor(
        async () => {
          expect((await fetch(`${base}/health`)).ok).toBe(true);
        },
        { timeout: 60_000, interval: 100 },
      );
      await Promise.race([listening, exited]);
    }, 60_000);

    afterAll(async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      const database = openDatabase({ url: testDatabaseUrl(), schema });
      await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(database.db);
      await database.close();
    });

    it("answers /health and /ready, runs without tsx, and serves its seeded data", async () => {
      expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: "ok", service: "schema-registry" });
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", migrations: "ok" } });
      // Seeds are a data folder next to src/, found through import.meta.url in the built tree.
      const schemas = (await (await fetch(`${base}/schemas`)).json()) as { meta: { total: number } };
      expect(schemas.meta.total).toBeGreaterThan(0);
      expect(output).not.toMatch(/tsx/);
    });
  });
});
