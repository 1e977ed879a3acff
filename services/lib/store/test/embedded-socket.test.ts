import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { socketPlace } from "../src/embedded-socket.js";
import { netAddressOf, startEmbeddedPostgres } from "../src/index.js";

/** The embedded database's listener: a Unix socket unless TCP is asked for (embedded-socket.ts). */
const root = mkdtempSync(join(tmpdir(), "attesto-socket-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function query(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** The socket file a URL names (undefined for a TCP URL). */
const socketOf = (url: string) => {
  const address = netAddressOf(url);
  return "path" in address ? address.path : undefined;
};

/** A socket file as a killed server leaves it: bound, never closed, nothing listening. */
function leaveStaleSocket(path: string): void {
  const script = `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
  try {
    execFileSync(process.execPath, ["-e", script], { stdio: "ignore" });
  } catch {
    // killed, as intended
  }
}

describe.skipIf(process.platform === "win32")("embedded database on a Unix socket", () => {
  it("listens on a socket in a private temporary folder by default, serves several clients, removes it on close", async () => {
    const db = await startEmbeddedPostgres();
    const socket = socketOf(db.url);
    try {
      expect(db.url).toMatch(/^postgres:\/\/postgres@%2F.*:5432\/postgres\?sslmode=disable$/);
      expect(socket && lstatSync(socket).isSocket()).toBe(true);
      const dir = join(socket as string, "..");
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(lstatSync(socket as string).mode & 0o777).toBe(0o600);
      const first = new pg.Client({ connectionString: db.url });
      const second = new pg.Client({ connectionString: db.url });
      await Promise.all([first.connect(), second.connect()]);
      try {
        const [a, b] = await Promise.all([first.query("SELECT 1 AS one"), second.query("SELECT 2 AS two")]);
        expect([a.rows, b.rows]).toEqual([[{ one: 1 }], [{ two: 2 }]]);
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
    } finally {
      await db.close();
    }
    expect(existsSync(socket as string)).toBe(false);
    expect(existsSync(join(socket as string, ".."))).toBe(false);
  });

  it("listens in the data folder, replacing a stale socket file there, and leaves the folder on close", async () => {
    const dataDir = join(root, "data");
    mkdirSync(dataDir);
    leaveStaleSocket(join(dataDir, ".s.PGSQL.5432"));
    expect(lstatSync(join(dataDir, ".s.PGSQL.5432")).isSocket()).toBe(true);

    const db = await startEmbeddedPostgres({ dataDir });
    try {
      expect(socketOf(db.url)).toBe(join(dataDir, ".s.PGSQL.5432"));
      expect(await query(db.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
    expect(existsSync(join(dataDir, ".s.PGSQL.5432"))).toBe(false);
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
  });

  it("uses a temporary folder when the data folder's socket path would not fit sun_path", () => {
    const deep = join(root, "d".repeat(100));
    const place = socketPlace(deep);
    try {
      expect(place?.temporary).toBe(true);
      expect(place?.dir.startsWith(tmpdir())).toBe(true);
      expect(place?.path).toBe(join(place?.dir as string, ".s.PGSQL.5432"));
    } finally {
      if (place) rmSync(place.dir, { recursive: true, force: true });
    }
  });

  it("names a relative data folder by its absolute path (a URL's socket folder starts with /)", () => {
    const place = socketPlace("relative/pgdata");
    expect(place).toEqual({
      dir: join(process.cwd(), "relative/pgdata"),
      path: join(process.cwd(), "relative/pgdata/.s.PGSQL.5432"),
      temporary: false,
    });
  });

  it("serves TCP when a host or port is asked for", async () => {
    const db = await startEmbeddedPostgres({ port: 0 });
    try {
      expect(db.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?sslmode=disable$/);
      expect(await query(db.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it("refuses a data folder whose socket a live server answers on", async () => {
    const dataDir = join(root, "in-use");
    mkdirSync(dataDir);
    const live = createServer();
    await new Promise<void>((resolve) => live.listen(join(dataDir, ".s.PGSQL.5432"), resolve));
    try {
      await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(/EADDRINUSE/);
      expect(lstatSync(join(dataDir, ".s.PGSQL.5432")).isSocket()).toBe(true);
    } finally {
      await new Promise<void>((resolve) => live.close(() => resolve()));
    }
  });
});

describe("where no Unix socket can be made", () => {
  it("has no socket place on Windows (the caller serves TCP)", () => {
    const platform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
    Object.defineProperty(process, "platform", { value: "win32" });
    try {
      expect(socketPlace(join(root, "data"))).toBeUndefined();
    } finally {
      Object.defineProperty(process, "platform", platform);
    }
  });
});
