import { join, relative, resolve } from "node:path";
import { embeddedTemplateDir, startEmbeddedPostgresThread } from "@attesto/store";
import type { LauncherConfig } from "./config.js";
import { lockDataDir } from "./data-dir-lock.js";
import { StartupError } from "./startup-error.js";

export interface PlatformDatabase {
  /** postgres:// URL handed to every service. */
  url: string;
  /** For people: "embedded PGlite at .attesto/pgdata" or "PostgreSQL at postgres://...". */
  description: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** A URL fit for a log line: the password, if any, replaced. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/** A path relative to `cwd` when it lies inside it, else absolute. */
function displayPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith("..") ? inside : path;
}

/**
 * The database every service shares: DATABASE_URL when set, else PGlite persisted in
 * `<ATTESTO_DATA_DIR>/pgdata` and served on a Unix socket there (cheaper per statement than
 * loopback TCP; see startEmbeddedPostgres for where else it may land), or on
 * 127.0.0.1:EMBEDDED_DATABASE_PORT when that is set.
 */
export async function openPlatformDatabase(config: LauncherConfig, cwd: string): Promise<PlatformDatabase> {
  if (config.DATABASE_URL) {
    return {
      url: config.DATABASE_URL,
      description: `PostgreSQL at ${redactDatabaseUrl(config.DATABASE_URL)}`,
      embedded: false,
      close: async () => {},
    };
  }
  const dataDir = resolve(cwd, config.ATTESTO_DATA_DIR);
  const pgdata = join(dataDir, "pgdata");
  const lock = lockDataDir(dataDir);
  try {
    // On a thread of its own: WASM PostgreSQL would otherwise run on the services' event loop.
    const server = await startEmbeddedPostgresThread({
      dataDir: pgdata,
      ...(config.EMBEDDED_DATABASE_PORT === undefined
        ? {}
        : { host: "127.0.0.1", port: config.EMBEDDED_DATABASE_PORT }),
      // A new data folder copies an empty cluster instead of running initdb (seconds of CPU).
      templateDir: embeddedTemplateDir(),
    });
    return {
      url: server.url,
      description: `embedded PGlite at ${displayPath(pgdata, cwd)}`,
      embedded: true,
      async close() {
        try {
          await server.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    const port = config.EMBEDDED_DATABASE_PORT;
    const where = port === undefined ? pgdata : `${pgdata}, EMBEDDED_DATABASE_PORT=${port}`;
    throw new StartupError(`the embedded database (${where}) did not start`, { cause: error });
  }
}
