import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { netAddressOf, openDatabase, pingDatabase } from "@attesto/store";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadLauncherConfig } from "./config.js";
import { openPlatformDatabase } from "./database.js";

const logger = pino({ level: "silent" });

/** Runs `text` on the database at `url` through a pool of the services' kind. */
async function query<T>(url: string, text: string): Promise<T[]> {
  const database = openDatabase<unknown>({ url, schema: "public", poolMax: 1 });
  try {
    await pingDatabase(database.db);
    return (await database.pool.query(text)).rows as T[];
  } finally {
    await database.close();
  }
}

/** The embedded database as the launcher opens it: its URL is what every service and psql get. */
describe.skipIf(process.platform === "win32")("openPlatformDatabase (embedded)", () => {
  // Reachable by the account PostgreSQL runs as when the tests run as root (mkdtemp makes it 0700).
  const cwd = mkdtempSync(join(tmpdir(), "attesto-platform-db-"));
  chmodSync(cwd, 0o755);
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("is native PostgreSQL by default, on a Unix socket in .attesto/postgres only, fsync and autovacuum on", async () => {
    const database = await openPlatformDatabase(loadLauncherConfig({}), cwd, logger);
    const socket = join(cwd, ".attesto", "postgres", ".s.PGSQL.5432");
    try {
      expect(database.engine).toBe("postgres");
      expect(database.description).toMatch(/^embedded native PostgreSQL at .*\.attesto[/\\]postgres$/);
      expect(netAddressOf(database.url)).toEqual({ path: socket });
      const [settings] = await query<Record<string, string>>(
        database.url,
        "SELECT current_setting('fsync') AS fsync, current_setting('autovacuum') AS autovacuum, " +
          "current_setting('listen_addresses') AS listen, current_setting('synchronous_commit') AS sync",
      );
      expect(settings).toEqual({
        fsync: "on",
        autovacuum: "on",
        listen: "",
        sync: "on",
      });
    } finally {
      await database.close();
    }
    expect(existsSync(socket)).toBe(false);
  });

  it("serves TCP on 127.0.0.1 when EMBEDDED_DATABASE_PORT is set", async () => {
    const database = await openPlatformDatabase(loadLauncherConfig({ EMBEDDED_DATABASE_PORT: "0" }), cwd, logger);
    try {
      expect(database.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
      expect(await query(database.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
  });

  it("keeps PGlite available: EMBEDDED_DATABASE_ENGINE=pglite serves .attesto/pgdata", {
    timeout: 180_000,
  }, async () => {
    const other = mkdtempSync(join(tmpdir(), "attesto-platform-db-pglite-"));
    try {
      const config = loadLauncherConfig({ EMBEDDED_DATABASE_ENGINE: "pglite" });
      const database = await openPlatformDatabase(config, other, logger);
      try {
        expect(database.engine).toBe("pglite");
        expect(netAddressOf(database.url)).toEqual({ path: join(other, ".attesto", "pgdata", ".s.PGSQL.5432") });
      } finally {
        await database.close();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("refuses a data folder made by the other engine, names the setting, and changes nothing", async () => {
    const other = mkdtempSync(join(tmpdir(), "attesto-platform-db-mixed-"));
    try {
      const pgdata = join(other, ".attesto", "pgdata");
      mkdirSync(pgdata, { recursive: true });
      writeFileSync(join(pgdata, "PG_VERSION"), "18\n");
      await expect(openPlatformDatabase(loadLauncherConfig({}), other, logger)).rejects.toThrow(
        /pgdata holds a database made by PGlite, which native PostgreSQL cannot open; set EMBEDDED_DATABASE_ENGINE=pglite/,
      );
      expect(existsSync(join(other, ".attesto", "postgres"))).toBe(false);
      expect(existsSync(join(pgdata, "PG_VERSION"))).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
