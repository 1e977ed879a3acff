import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  type Stats,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { netAddressOf, openDatabase, pingDatabase } from "@attesto/store";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadLauncherConfig } from "../src/config.js";
import { openPlatformDatabase } from "../src/database.js";

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

/** Every file and folder under `dir`: its mode, size, modification time and (for files) content digest. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const describe = (path: string, stat: Stats) =>
    `${stat.mode.toString(8)} ${stat.size} ${stat.mtimeMs}${stat.isFile() ? ` ${createHash("sha256").update(readFileSync(path)).digest("hex")}` : ""}`;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = lstatSync(path);
      entries[path.slice(dir.length)] = describe(path, stat);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return entries;
}

/**
 * What a start that crashed leaves in the temporary folder when its socket could not go in the
 * data folder: `/tmp/attesto-pg-*` with the socket file of a server that was killed (SIGKILL: it
 * could not unlink it), dated `ageMs` back.
 */
async function crashedSocketPlace(ageMs: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "attesto-pg-"));
  const socket = join(dir, ".s.PGSQL.5432");
  const server = spawn(
    process.execPath,
    ["-e", `require("node:net").createServer().listen(${JSON.stringify(socket)}, () => console.log("listening"))`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    server.stdout!.once("data", () => resolve());
    server.once("exit", (code) => reject(new Error(`the socket server exited with ${code}`)));
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGKILL");
  await exited;
  expect(lstatSync(socket).isSocket()).toBe(true);
  const then = new Date(Date.now() - ageMs);
  utimesSync(dir, then, then);
  return dir;
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

  it("removes a temporary socket folder a crashed start left, on the next start", async () => {
    const left = await crashedSocketPlace(10 * 60_000);
    try {
      const database = await openPlatformDatabase(loadLauncherConfig({}), cwd, logger);
      await database.close();
      expect(existsSync(left)).toBe(false);
    } finally {
      rmSync(left, { recursive: true, force: true });
    }
  });

  it("keeps PGlite available (EMBEDDED_DATABASE_ENGINE=pglite, .attesto/pgdata); its folder is refused by the native default, untouched", {
    timeout: 180_000,
  }, async () => {
    const other = mkdtempSync(join(tmpdir(), "attesto-platform-db-mixed-"));
    try {
      const pglite = loadLauncherConfig({ EMBEDDED_DATABASE_ENGINE: "pglite" });
      const made = await openPlatformDatabase(pglite, other, logger);
      try {
        expect(made.engine).toBe("pglite");
        expect(netAddressOf(made.url)).toEqual({ path: join(other, ".attesto", "pgdata", ".s.PGSQL.5432") });
        await query(made.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('made by PGlite')");
      } finally {
        await made.close();
      }
      const cluster = join(other, ".attesto", "pgdata");
      const before = snapshot(cluster);
      await expect(openPlatformDatabase(loadLauncherConfig({}), other, logger)).rejects.toThrow(
        /\.attesto[/\\]pgdata holds a database made by PGlite, which native PostgreSQL cannot open; set EMBEDDED_DATABASE_ENGINE=pglite to keep using it \(nothing was changed\)/,
      );
      expect(snapshot(cluster)).toEqual(before);
      expect(existsSync(join(other, ".attesto", "postgres"))).toBe(false);
      // Nothing emptied: PGlite, asked for, still serves what it held.
      const again = await openPlatformDatabase(pglite, other, logger);
      try {
        expect(await query(again.url, "SELECT note FROM kept")).toEqual([{ note: "made by PGlite" }]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
