import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { netAddressOf, openDatabase, pingDatabase } from "@attesto/store";
import { afterAll, describe, expect, it } from "vitest";
import { loadLauncherConfig } from "./config.js";
import { openPlatformDatabase } from "./database.js";

/** The embedded database as the launcher opens it: its URL is what every service and psql get. */
describe.skipIf(process.platform === "win32")("openPlatformDatabase (embedded)", () => {
  const cwd = mkdtempSync(join(tmpdir(), "attesto-platform-db-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  /** Whether a pool of the services' kind reaches the database at `url`. */
  async function reachable(url: string) {
    const database = openDatabase<unknown>({ url, schema: "public", poolMax: 1 });
    try {
      await pingDatabase(database.db);
      return true;
    } finally {
      await database.close();
    }
  }

  it("serves a Unix socket in the data folder by default, removed on close", async () => {
    const database = await openPlatformDatabase(loadLauncherConfig({ DATABASE_URL: undefined }), cwd);
    const socket = join(cwd, ".attesto", "pgdata", ".s.PGSQL.5432");
    try {
      expect(netAddressOf(database.url)).toEqual({ path: socket });
      expect(await reachable(database.url)).toBe(true);
    } finally {
      await database.close();
    }
    expect(existsSync(socket)).toBe(false);
  });

  it("serves TCP on 127.0.0.1 when EMBEDDED_DATABASE_PORT is set", async () => {
    const database = await openPlatformDatabase(loadLauncherConfig({ EMBEDDED_DATABASE_PORT: "0" }), cwd);
    try {
      expect(database.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
      expect(await reachable(database.url)).toBe(true);
    } finally {
      await database.close();
    }
  });
});
