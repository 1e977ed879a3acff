import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLauncherConfig, type Platform, platformServices, startPlatform } from "@attesto/all-in-one";
import { openDatabase } from "@attesto/store";
import pino from "pino";

/**
 * The real platform for operator tests that need it: every service but the holder and the
 * scheduler, started in this process by the all-in-one launcher's `startPlatform` on real ports
 * (DESIGN.md ports + `portOffset`), with a SERVICE_AUTH_SECRET the test knows so that the operator
 * can call the internal APIs. Embedded PGlite in a temporary folder, or DATABASE_URL with schemas
 * unique to this run (dropped on close).
 */
export interface RealPlatform {
  serviceAuthSecret: string;
  url(service: string): string;
  internalUrl(service: string): string;
  close(): Promise<void>;
}

const NOT_STARTED = new Set(["holder", "scheduler"]);
const prefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");

export async function startRealPlatform(options: { portOffset: number; label: string }): Promise<RealPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-k8s-${options.label}-`));
  const realDatabaseUrl = process.env.DATABASE_URL || undefined;
  const run = randomBytes(4).toString("hex");
  const schemaOf = (service: string) => `k8s_${options.label}_${run}_${service.replace(/-/g, "_")}`;
  const serviceAuthSecret = randomBytes(32).toString("base64url");
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT_OFFSET: String(options.portOffset),
    ATTESTO_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.K8S_PLATFORM_LOG_LEVEL ?? "error",
    SERVICE_AUTH_SECRET: serviceAuthSecret,
    DATABASE_URL: realDatabaseUrl,
  };
  const names = platformServices.map((module) => module.definition.name);
  if (realDatabaseUrl) for (const name of names) env[`${prefixOf(name)}_DATABASE_SCHEMA`] = schemaOf(name);
  for (const module of platformServices) {
    if (!NOT_STARTED.has(module.definition.name)) continue;
    // Point the services that are not started into this port range, never at a developer's instance.
    const prefix = prefixOf(module.definition.name);
    env[`${prefix}_URL`] = `http://localhost:${module.ports.public + options.portOffset}`;
    env[`${prefix}_INTERNAL_URL`] = `http://localhost:${module.ports.internal + options.portOffset}`;
  }
  const config = loadLauncherConfig(env);

  let platform: Platform;
  try {
    platform = await startPlatform({
      config,
      env,
      cwd: dataDir,
      logger: pino({ level: config.LOG_LEVEL }),
      services: platformServices.filter((module) => !NOT_STARTED.has(module.definition.name)),
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const addressOf = (service: string) => {
    const address = platform.services.find((s) => s.name === service);
    if (!address) throw new Error(`the platform runs no ${service}`);
    return address;
  };
  return {
    serviceAuthSecret,
    url: (service) => addressOf(service).publicUrl,
    internalUrl: (service) => addressOf(service).internalUrl,
    async close() {
      try {
        await platform.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        if (realDatabaseUrl) {
          const database = openDatabase({ url: realDatabaseUrl, schema: "public", poolMax: 1 });
          for (const name of names) await database.pool.query(`DROP SCHEMA IF EXISTS ${schemaOf(name)} CASCADE`);
          await database.close();
        }
      }
    },
  };
}
