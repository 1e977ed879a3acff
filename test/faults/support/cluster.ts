import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@attesto/store";
import pg from "pg";
import { developmentSecrets, identityPublicKeysOf } from "../../../services/all-in-one/src/dev-secrets.js";
import { buildServiceEnv, planAddresses } from "../../../services/all-in-one/src/service-env.js";
import {
  EXTRA_TEST_SECRETS,
  type PlatformUrls,
  SERVICE_PORTS,
  type ServiceName,
  snapshotSchemas,
  urlsFor,
} from "../../hostile/support/platform.js";

/**
 * The production topology in miniature: each service its own `node --import tsx
 * services/<svc>/src/main.ts` process, with the environment the all-in-one launcher would give it
 * (service-env.ts), so a test can kill -9 one of them, restart it, or stop the ledger.
 *
 * The database is this run's own: a fresh database on DATABASE_URL's server (so its backends can
 * be terminated without touching anyone else's), or an embedded PGlite served from this process
 * on a fixed port with its data on disk (so it can itself be restarted).
 */

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

const MAX_OUTPUT_CHARS = 100_000;

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ClusterDatabase {
  /** URL every service is given. */
  url: string;
  embedded: boolean;
  /** Real PostgreSQL: the database created for this run (its backends are ours alone). */
  name?: string;
  /** Embedded only: stops the PGlite server and starts it again on the same port and data. */
  restart?: () => Promise<void>;
  close(): Promise<void>;
}

export interface Cluster {
  url: PlatformUrls;
  schema: Record<ServiceName, string>;
  database: ClusterDatabase;
  /** A small pool on the run's database, for assertions. */
  pool: pg.Pool;
  processes: Map<ServiceName, ServiceProcess>;
  start(name: ServiceName): Promise<ServiceProcess>;
  /** Sends `signal` and waits for the exit. */
  stop(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /**
   * SIGSTOP (`paused`) or SIGCONT: a paused service keeps its sockets open but never answers, so a
   * caller waits out its deadline.
   */
  pause(name: ServiceName, paused: boolean): void;
  snapshot(): Promise<Record<string, string>>;
  /** The error-level log lines a service printed (message, error type and message), for failure reports. */
  errorsOf(name: ServiceName): string[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function openDatabase(label: string): Promise<ClusterDatabase> {
  const realUrl = process.env.DATABASE_URL || undefined;
  if (realUrl) {
    const name = `${label}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: realUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(realUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      embedded: false,
      name,
      async close() {
        const cleanup = new pg.Client({ connectionString: realUrl });
        await cleanup.connect();
        await cleanup.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [name],
        );
        await cleanup.query(`DROP DATABASE IF EXISTS "${name}"`);
        await cleanup.end();
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${label}-pg-`));
  const port = await freePort();
  let server: EmbeddedPostgres | undefined = await startEmbeddedPostgres({ dataDir: join(dataDir, "pgdata"), port });
  return {
    url: server.url,
    embedded: true,
    async restart() {
      await server?.close();
      server = undefined;
      server = await startEmbeddedPostgres({ dataDir: join(dataDir, "pgdata"), port });
    },
    async close() {
      await server?.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `timed out after ${options.timeoutMs} ms waiting for ${what}${lastError ? ` (${String(lastError)})` : ""}`,
  );
}

const healthy = async (url: string) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
  return response.status === 200 ? true : undefined;
};

export async function startCluster(options: {
  portOffset: number;
  label: string;
  services: ServiceName[];
  env?: Record<string, string>;
}): Promise<Cluster> {
  const run = randomBytes(4).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), `attesto-${options.label}-`));
  const database = await openDatabase(options.label);
  const schema = Object.fromEntries(
    (Object.keys(SERVICE_PORTS) as ServiceName[]).map((name) => [
      name,
      `${options.label}_${run}_${name.replace(/-/g, "_")}`,
    ]),
  ) as Record<ServiceName, string>;

  const baseEnv: Record<string, string | undefined> = { ...process.env, ...EXTRA_TEST_SECRETS, ...options.env };
  delete baseEnv.DATABASE_URL;
  for (const name of Object.keys(schema) as ServiceName[]) {
    baseEnv[`${name.toUpperCase().replace(/-/g, "_")}_DATABASE_SCHEMA`] = schema[name];
  }
  baseEnv.SCHEDULER_JOB_QUEUE_SCHEMA = `${options.label}_${run}_boss`;
  const secrets = developmentSecrets(dataDir, baseEnv);
  const env = { ...baseEnv, ...secrets.values };
  const modules = (Object.keys(SERVICE_PORTS) as ServiceName[]).map((name) => ({
    definition: { name },
    ports: { public: SERVICE_PORTS[name], internal: SERVICE_PORTS[name] + 1000 },
  }));
  const addresses = planAddresses(modules, { host: "127.0.0.1", portOffset: options.portOffset }, env);
  const serviceIdentityPublicKeys = identityPublicKeysOf(env);
  const envOf = (name: ServiceName) =>
    buildServiceEnv({
      address: addresses.find((a) => a.name === name)!,
      addresses,
      env,
      logLevel: process.env.FAULTS_LOG_LEVEL ?? "warn",
      databaseUrl: database.url,
      serviceIdentityPublicKeys,
    });

  const processes = new Map<ServiceName, ServiceProcess>();
  /** Output of earlier incarnations of a restarted service. */
  const outputs = new Map<ServiceName, string[]>();
  const start = async (name: ServiceName): Promise<ServiceProcess> => {
    const child = spawn(process.execPath, ["--import", "tsx", `services/${name}/src/main.ts`], {
      cwd: repoRoot,
      env: envOf(name) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-MAX_OUTPUT_CHARS);
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const service: ServiceProcess = { name, child, output: () => output, exited };
    const previous = processes.get(name);
    if (previous) outputs.set(name, [...(outputs.get(name) ?? []), previous.output()]);
    processes.set(name, service);
    const address = addresses.find((a) => a.name === name)!;
    let dead = false;
    void exited.then(() => {
      dead = true;
    });
    await waitFor(
      `${name} to answer /health`,
      async () => {
        if (dead) throw new Error(`${name} exited during start-up:\n${output.slice(-3000)}`);
        return (await healthy(address.healthUrls.public)) && (await healthy(address.healthUrls.internal));
      },
      { timeoutMs: 90_000, intervalMs: 150 },
    ).catch((error: Error) => {
      child.kill("SIGKILL");
      throw new Error(`${error.message}\n${output.slice(-3000)}`);
    });
    return service;
  };

  const stop = async (name: ServiceName, signal: NodeJS.Signals = "SIGTERM") => {
    const service = processes.get(name);
    if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
    service.child.kill(signal);
    const timer = setTimeout(() => service.child.kill("SIGKILL"), 15_000);
    await service.exited;
    clearTimeout(timer);
  };

  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on("error", () => {});
  const cluster: Cluster = {
    url: urlsFor(options.portOffset),
    schema,
    database,
    pool,
    processes,
    start,
    stop,
    pause: (name, paused) => {
      processes.get(name)?.child.kill(paused ? "SIGSTOP" : "SIGCONT");
    },
    snapshot: () => snapshotSchemas(pool, Object.values(schema)),
    errorsOf(name) {
      const output = [...(outputs.get(name) ?? []), processes.get(name)?.output() ?? ""].join("\n");
      return output
        .split("\n")
        .filter((line) => line.includes('"level":"error"') || line.includes('"level":50'))
        .map((line) => {
          try {
            const entry = JSON.parse(line) as {
              message?: string;
              msg?: string;
              err?: { type?: string; message?: string; code?: string };
            };
            return `${entry.message ?? entry.msg}: ${entry.err?.type ?? ""} ${entry.err?.code ?? ""} ${entry.err?.message ?? ""}`.slice(
              0,
              300,
            );
          } catch {
            return line.slice(0, 300);
          }
        });
    },
    async close() {
      await Promise.all([...processes.keys()].map((name) => stop(name)));
      await pool.end().catch(() => {});
      await database.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    // Start order of the launcher (services.ts): a service after those it may call while starting.
    const order: ServiceName[] = [
      "ledger",
      "schema-registry",
      "trust-registry",
      "auth-server",
      "credential-issuer",
      "verifier",
      "holder",
      "scheduler",
    ];
    const wanted = order.filter((name) => options.services.includes(name));
    // The first three build the schemas others read at start-up; the rest start side by side.
    for (const name of wanted.filter((n) => ["ledger", "schema-registry", "trust-registry"].includes(n)))
      await start(name);
    await Promise.all(wanted.filter((n) => !["ledger", "schema-registry", "trust-registry"].includes(n)).map(start));
  } catch (error) {
    await cluster.close().catch(() => {});
    throw error;
  }
  return cluster;
}
