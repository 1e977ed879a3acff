import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import {
  removeAbandonedSocketPlaces,
  removeSocketPlace,
  removeStaleSocket,
  type SocketPlace,
  socketPlace,
  socketUrl,
} from "./embedded-socket.js";
import { PgliteWireServer } from "./pglite-wire-server.js";

/**
 * Settings for the embedded database, on top of PGlite's own. PGlite is one backend in this
 * process's WASM memory, and that memory never shrinks, so PostgreSQL's server defaults (sized for
 * a dedicated machine) are paid in RSS: shared_buffers 128MB alone grows the WASM memory past its
 * initial 128 MiB and costs ~130 MiB of idle RSS. A development database of a few MB is served
 * from 32MB of buffers and the operating system's page cache behind them; max_connections is
 * moot for a single backend (the wire server shares it), but sizes shared tables (PGPROC, the lock
 * table: max_locks_per_transaction x max_connections slots, kept at the default 6400).
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: "32MB",
  max_connections: "10",
  max_locks_per_transaction: "640",
};

export interface EmbeddedPostgres {
  /** postgres:// URL that any pg client can use. */
  url: string;
  close(): Promise<void>;
}

const startParams = [
  ...PGlite.defaultStartParams,
  ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
];

/**
 * Where new data folders copy their empty cluster from: node_modules/.cache/attesto (beside the
 * installed PGlite; a reinstall starts afresh), one per PGlite version, since initdb's output is
 * tied to it. Undefined when PGlite is not installed in a node_modules folder.
 */
export function embeddedTemplateDir(): string | undefined {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const marker = join("node_modules", "@electric-sql", "pglite");
  const at = entry.lastIndexOf(marker);
  if (at < 0) return undefined;
  const nodeModules = entry.slice(0, at + "node_modules".length);
  const { version } = JSON.parse(readFileSync(join(nodeModules, "@electric-sql", "pglite", "package.json"), "utf8"));
  return join(nodeModules, ".cache", "attesto", `pglite-${version}-template`);
}

const isCluster = (dir: string) => existsSync(join(dir, "PG_VERSION"));

/**
 * A new cluster in the empty `dataDir`, copied from `templateDir` (an empty cluster as initdb left
 * it), which is made first when missing. initdb in WASM is most of a cold start (seconds of CPU);
 * the copy takes a fraction of a second. Best effort: false when the template cannot be made
 * (e.g. a read-only file system), and the caller runs initdb in `dataDir` itself.
 */
async function copyTemplateCluster(templateDir: string, dataDir: string): Promise<boolean> {
  try {
    if (!isCluster(templateDir)) {
      const building = `${templateDir}.building-${process.pid}`;
      rmSync(building, { recursive: true, force: true });
      mkdirSync(building, { recursive: true });
      const initdb = await PGlite.create({ dataDir: building, startParams });
      await initdb.close();
      try {
        renameSync(building, templateDir);
      } catch {
        rmSync(building, { recursive: true, force: true }); // another process made it first
      }
    }
    cpSync(templateDir, dataDir, { recursive: true });
    return true;
  } catch {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    return false;
  }
}

/**
 * PGlite (WASM PostgreSQL) served over the Postgres wire protocol, so services, kysely and pg-boss
 * use the ordinary `pg` driver against it. `dataDir` persists data; omit it for memory only.
 * `templateDir`: where an empty cluster is kept for new data folders (see copyTemplateCluster).
 *
 * Where it listens: with `host` or `port`, TCP there (`host` defaults to 127.0.0.1, `port` to any
 * free port); otherwise a Unix domain socket in `dataDir` (or a private temporary folder), and
 * TCP on 127.0.0.1 only where no socket can be made (see embedded-socket.ts). `url` names either.
 */
export interface EmbeddedPostgresOptions {
  dataDir?: string;
  host?: string;
  port?: number;
  templateDir?: string;
}

interface Listening {
  url: string;
  /** The Unix socket's place, when listening on one. */
  place?: SocketPlace;
}

/**
 * TCP when `host` or `port` is asked for; else the Unix socket, falling back to TCP on 127.0.0.1
 * when none can be made or bound (e.g. a file system without sockets). A socket file that a live
 * server answers on (EADDRINUSE) fails the start instead: the data folder is in use.
 */
async function listen(server: PgliteWireServer, options: EmbeddedPostgresOptions): Promise<Listening> {
  const tcp = options.host !== undefined || options.port !== undefined;
  const place = tcp ? undefined : socketPlace(options.dataDir);
  if (place) {
    try {
      await removeStaleSocket(place.path);
      await server.listenOnSocket(place.path);
      // Owner only, whatever the umask left: the server trusts every connection (no password).
      chmodSync(place.path, 0o600);
      return { url: socketUrl(place.dir), place };
    } catch (error) {
      await server.close();
      removeSocketPlace(place);
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw error;
    }
  }
  const host = options.host ?? "127.0.0.1";
  const port = await server.listen(host, options.port ?? 0);
  return { url: `postgres://postgres@${host}:${port}/postgres?sslmode=disable` };
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  await removeAbandonedSocketPlaces();
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    if (options.templateDir && readdirSync(options.dataDir).length === 0) {
      await copyTemplateCluster(options.templateDir, options.dataDir);
    }
  }
  const db = await PGlite.create({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), startParams });
  const server = new PgliteWireServer(db);
  let listening: Listening;
  try {
    listening = await listen(server, options);
  } catch (error) {
    await server.close();
    await db.close();
    throw error;
  }
  const { url, place } = listening;
  return {
    url,
    async close() {
      await server.close(); // also unlinks the socket file
      if (place) removeSocketPlace(place);
      await db.close();
    },
  };
}
