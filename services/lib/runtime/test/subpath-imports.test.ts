import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Each `@attesto/runtime/<concern>` loads only what that concern needs: domain code importing
// `/errors` must not start the HTTP, RPC or telemetry stack, nor the operator's `/config` and
// `/logging`. Checked in a fresh Node process that records every module it resolves.

const repository = fileURLToPath(new URL("../../../..", import.meta.url));
const runtimeSource = pathToFileURL(fileURLToPath(new URL("../src/", import.meta.url))).href;
const recorder = fileURLToPath(new URL("./fixtures/record-resolved.mjs", import.meta.url));
const folder = mkdtempSync(join(tmpdir(), "attesto-subpaths-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The URLs of every module that importing `specifier` resolves, builtins left out. */
function modulesLoadedBy(specifier: string): string[] {
  const record = join(folder, `${specifier.replace(/\W/g, "_")}.txt`);
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      recorder,
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(specifier)});`,
    ],
    { cwd: repository, env: { ...process.env, RECORD_RESOLVED_TO: record }, encoding: "utf8" },
  );
  expect(run.stderr).not.toMatch(/Error/);
  expect(run.status).toBe(0);
  return readFileSync(record, "utf8")
    .split("\n")
    .filter((url) => url !== "" && !url.startsWith("node:"));
}

const packagesOf = (urls: string[]): string[] =>
  [...new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))].sort();

const HEAVY = /^(fastify|@fastify\/|@connectrpc\/|@opentelemetry\/|prom-client|undici|pg$|kysely)/;

describe("runtime subpaths", () => {
  it("/errors loads only the error model", () => {
    const loaded = modulesLoadedBy("@attesto/runtime/errors");
    const runtimeFiles = loaded.filter((url) => url.startsWith(runtimeSource));
    expect([...new Set(runtimeFiles.map((url) => url.slice(runtimeSource.length)))].sort()).toEqual([
      "errors/app-error.ts",
      "errors/index.ts",
      "errors/json-schema-field-errors.ts",
      "errors/oauth-errors.ts",
      "errors/unstorable-text.ts",
    ]);
    expect(packagesOf(loaded.filter((url) => !url.startsWith(runtimeSource)))).toEqual([]);
  });

  it("/tenant-id loads only its rules and zod", () => {
    const loaded = modulesLoadedBy("@attesto/runtime/tenant-id");
    expect([...new Set(loaded.filter((url) => url.startsWith(runtimeSource)))]).toEqual([
      `${runtimeSource}tenant-id.ts`,
    ]);
    expect(packagesOf(loaded.filter((url) => !url.startsWith(runtimeSource)))).toEqual(["zod"]);
  });

  it("/status-list-size loads only its rules", () => {
    const loaded = modulesLoadedBy("@attesto/runtime/status-list-size");
    expect([...new Set(loaded.filter((url) => url.startsWith(runtimeSource)))]).toEqual([
      `${runtimeSource}status-list-size.ts`,
    ]);
    expect(packagesOf(loaded.filter((url) => !url.startsWith(runtimeSource)))).toEqual([]);
  });

  it.each(["config", "logging"])("/%s loads no HTTP, RPC, database or telemetry SDK package", (subpath) => {
    const packages = packagesOf(modulesLoadedBy(`@attesto/runtime/${subpath}`));
    expect(packages.filter((name) => HEAVY.test(name) && name !== "@opentelemetry/api")).toEqual([]);
  });

  it("/rpc loads Connect and none of the protocol libraries (the operator and the CLI use it)", () => {
    const packages = packagesOf(modulesLoadedBy("@attesto/runtime/rpc"));
    expect(packages).toContain("@connectrpc/connect");
    expect(packages.filter((name) => /^(@peculiar\/|@sd-jwt\/|dcql$|@owf\/|fastify$)/.test(name))).toEqual([]);
  });

  it("/http loads Fastify (the check above can fail)", () => {
    expect(packagesOf(modulesLoadedBy("@attesto/runtime/http"))).toContain("fastify");
  });
});
