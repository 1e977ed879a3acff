import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@attesto/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LauncherProcess, repoRoot, startLauncher } from "./support/launcher.js";

/**
 * `npm start` end to end: the real launcher in a child process, every service on real ports
 * (the default ports (root README, "Services and ports") + 20000, so a dev instance on the default ports is left alone), real HTTP.
 * On real PostgreSQL (DATABASE_URL set) each service gets a schema unique to this run.
 */
const PORT_OFFSET = 20_000;
const VERSION = "0.1.0";
const services = [
  { name: "auth-server", port: 8081 },
  { name: "credential-issuer", port: 8082 },
  { name: "verifier", port: 8083 },
  { name: "holder", port: 8084 },
  { name: "trust-registry", port: 8085 },
  { name: "schema-registry", port: 8086 },
  { name: "scheduler", port: 8087 },
  { name: "ledger", port: 8088 },
].map((s) => ({
  ...s,
  publicUrl: `http://localhost:${s.port + PORT_OFFSET}`,
  internalUrl: `http://localhost:${s.port + 1000 + PORT_OFFSET}`,
}));
const schemaRegistry = services.find((s) => s.name === "schema-registry")!;

const realDatabaseUrl = process.env.DATABASE_URL || undefined;
const run = randomBytes(4).toString("hex");
const schemaOf = (service: string) => `e2e_${run}_${service.replace(/-/g, "_")}`;
const prefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");

function launcherEnv(dataDir: string, database: "configured" | "embedded" = "configured"): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT_OFFSET: String(PORT_OFFSET),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL;
  delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
  if (realDatabaseUrl && database === "configured") {
    env.DATABASE_URL = realDatabaseUrl;
    for (const { name } of services) env[`${prefixOf(name)}_DATABASE_SCHEMA`] = schemaOf(name);
  }
  return env;
}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

describe("all-in-one launcher (npm start)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "attesto-e2e-"));
  let launcher: LauncherProcess;

  beforeAll(async () => {
    launcher = await startLauncher({ env: launcherEnv(dataDir), readyTimeoutMs: 110_000 });
  });

  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => {}); // no-op when a test already stopped it
    rmSync(dataDir, { recursive: true, force: true });
    if (realDatabaseUrl) {
      const database = openDatabase({ url: realDatabaseUrl, schema: "public", poolMax: 1 });
      for (const { name } of services) await database.pool.query(`DROP SCHEMA IF EXISTS ${schemaOf(name)} CASCADE`);
      await database.close();
    }
  });

  it("prints every service with its public and internal URL", () => {
    for (const s of services) {
      expect(launcher.output()).toMatch(new RegExp(`${s.name}\\s+${s.publicUrl}\\s+${s.internalUrl}`));
    }
  });

  it("answers /health on every public and internal port", async () => {
    for (const s of services) {
      for (const url of [`${s.publicUrl}/health`, `${s.internalUrl}/health`]) {
        expect({ url, ...(await getJson(url)) }).toEqual({
          url,
          status: 200,
          body: { status: "ok", service: s.name, version: VERSION },
        });
      }
    }
  });

  it("lists the seeded credential types and serves their metadata under the registry's public URL", async () => {
    const list = await getJson(`${schemaRegistry.publicUrl}/schemas`);
    expect(list.status).toBe(200);
    const { data } = list.body as { data: Array<{ type: string; version: string }> };
    expect(data.length).toBeGreaterThanOrEqual(4);

    const { type, version } = data[0]!;
    const metadata = await getJson(`${schemaRegistry.publicUrl}/schemas/${type}/${version}`);
    expect(metadata.status).toBe(200);
    expect((metadata.body as { vct: string }).vct).toBe(`${schemaRegistry.publicUrl}/schemas/${type}/${version}`);
  });

  it("refuses an internal RPC without a service credential", async () => {
    const url = `${schemaRegistry.internalUrl}/attesto.schema.v1.SchemaService/ListCredentialTypes`;
    const response = await getJson(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response).toMatchObject({ status: 401, body: { code: "unauthenticated" } });
  });

  it("stops cleanly on SIGTERM within the grace period", async () => {
    expect(await launcher.stop("SIGTERM", 15_000)).toEqual({ code: 0, signal: null });
    await expect(fetch(`${schemaRegistry.publicUrl}/health`)).rejects.toThrow();
  });
});

describe("all-in-one launcher: the embedded database (no DATABASE_URL, as on a new machine)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "attesto-e2e-embedded-"));
  let launcher: LauncherProcess | undefined;
  afterAll(async () => {
    await launcher?.stop("SIGTERM", 15_000).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it("keeps its data across a restart with the same data folder", async () => {
    launcher = await startLauncher({ env: launcherEnv(dataDir, "embedded"), readyTimeoutMs: 110_000 });
    const before = openDatabase({ url: launcher.embeddedDatabaseUrl!, schema: "public", poolMax: 1 });
    await before.pool.query("CREATE SCHEMA IF NOT EXISTS e2e_marker");
    await before.pool.query("CREATE TABLE IF NOT EXISTS e2e_marker.runs (run text PRIMARY KEY)");
    await before.pool.query("INSERT INTO e2e_marker.runs (run) VALUES ($1)", [run]);
    await before.close();
    expect(await launcher.stop("SIGTERM", 15_000)).toEqual({ code: 0, signal: null });

    launcher = await startLauncher({ env: launcherEnv(dataDir, "embedded"), readyTimeoutMs: 80_000 });
    const after = openDatabase({ url: launcher.embeddedDatabaseUrl!, schema: "public", poolMax: 1 });
    const { rows } = await after.pool.query("SELECT run FROM e2e_marker.runs");
    await after.close();
    expect(rows).toEqual([{ run }]);
    const list = await getJson(`${schemaRegistry.publicUrl}/schemas`);
    expect((list.body as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(4);
    expect(await launcher.stop("SIGTERM", 15_000)).toEqual({ code: 0, signal: null });
    launcher = undefined;
  }, 200_000);
});

describe("all-in-one launcher: a data folder PGlite made, native PostgreSQL the default", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "attesto-e2e-pglite-folder-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("stops with exit code 1 and the setting that keeps it, and leaves the database folder alone", async () => {
    // What the engine check reads of a cluster (services/all-in-one/test/database.test.ts uses a real PGlite one).
    const pgdata = join(dataDir, "pgdata");
    mkdirSync(pgdata, { recursive: true });
    writeFileSync(join(pgdata, "PG_VERSION"), "17\n");
    const env = launcherEnv(dataDir, "embedded");
    delete env.EMBEDDED_DATABASE_ENGINE;
    const child = spawn(process.execPath, ["--import", "tsx", "services/all-in-one/src/main.ts"], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(
      `Attesto failed to start: ${pgdata} holds a database made by PGlite, which native PostgreSQL cannot open; ` +
        "set EMBEDDED_DATABASE_ENGINE=pglite to keep using it (nothing was changed)",
    );
    expect(existsSync(join(dataDir, "postgres"))).toBe(false);
    expect(readFileSync(join(pgdata, "PG_VERSION"), "utf8")).toBe("17\n");
  }, 120_000);
});
