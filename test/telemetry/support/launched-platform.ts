import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type LauncherProcess, startLauncher } from "../../e2e/support/launcher.js";
import {
  EXTRA_TEST_SECRETS,
  envPrefixOf,
  type PlatformUrls,
  SERVICE_NAMES,
  SERVICE_PORTS,
  type ServiceName,
  urlsFor,
} from "../../hostile/support/platform.js";

/**
 * The platform as `npm start` runs it (the all-in-one launcher in a child process, real ports =
 * the default ports (root README, "Services and ports") + `portOffset`), for telemetry tests: what it exports is what an operator sees.
 * On real PostgreSQL (DATABASE_URL) each service gets a schema unique to this run; otherwise the
 * launcher's embedded PGlite, reached by the services over its wire-protocol server.
 */
export interface LaunchedPlatform {
  url: PlatformUrls;
  /** Internal (Connect + /metrics) base URL of each service. */
  internalUrl: Record<ServiceName, string>;
  launcher: LauncherProcess;
  /** SIGTERM and wait: in-flight work drains and the tracer flushes before the process exits. */
  stop(): Promise<void>;
}

export async function launchPlatform(options: {
  portOffset: number;
  label: string;
  env?: Record<string, string>;
}): Promise<LaunchedPlatform> {
  const run = randomBytes(4).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${options.label}-`));
  const realDatabaseUrl = process.env.DATABASE_URL || undefined;
  const schemas = [...SERVICE_NAMES.map((name) => `${options.label}_${run}_${name.replace(/-/g, "_")}`)];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...EXTRA_TEST_SECRETS,
    PORT_OFFSET: String(options.portOffset),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...options.env,
  };
  delete env.DATABASE_URL;
  delete env.SERVICE_IDENTITY_PUBLIC_KEYS;
  if (realDatabaseUrl) {
    env.DATABASE_URL = realDatabaseUrl;
    SERVICE_NAMES.forEach((name, i) => {
      env[`${envPrefixOf(name)}_DATABASE_SCHEMA`] = schemas[i];
    });
    schemas.push(`${options.label}_${run}_boss`);
    env.SCHEDULER_JOB_QUEUE_SCHEMA = schemas.at(-1);
  }

  const cleanUp = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (!realDatabaseUrl) return;
    const pool = new pg.Pool({ connectionString: realDatabaseUrl, max: 1 });
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await pool.end();
  };
  let launcher: LauncherProcess;
  try {
    launcher = await startLauncher({ env, readyTimeoutMs: 110_000 });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const internalUrl = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, `http://localhost:${SERVICE_PORTS[name] + 1000 + options.portOffset}`]),
  ) as Record<ServiceName, string>;
  let stopped: Promise<void> | undefined;
  return {
    url: urlsFor(options.portOffset),
    internalUrl,
    launcher,
    stop() {
      stopped ??= (async () => {
        try {
          const status = await launcher.stop("SIGTERM", 20_000);
          if (status.code !== 0)
            throw new Error(`launcher exited with ${JSON.stringify(status)}:\n${launcher.output()}`);
        } finally {
          await cleanUp();
        }
      })();
      return stopped;
    },
  };
}
