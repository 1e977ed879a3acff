import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { developmentSecrets, identityPublicKeysOf } from "../../services/all-in-one/src/dev-secrets.js";
import type { Env } from "../../services/all-in-one/src/service-address.js";
import { buildServiceEnv, planAddresses } from "../../services/all-in-one/src/service-env.js";
import { platformServices } from "../../services/all-in-one/src/services.js";
import { waitForHealth } from "../../services/all-in-one/src/wait-for-health.js";
import { buildRuntimeTree, transpileFile } from "../build/compile.js";
import { ALL_IN_ONE_NODE_FLAGS } from "../build/node-flags.mjs";
import { PgCounter } from "./pg-counter.js";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The services on the measured paths, in the launcher's start order; the holder joins when its
 * flows run, the scheduler when verification flows run (the verifier publishes every outcome to
 * it as a webhook event; without it each publish would fail, retry and log a warning, a cost
 * production does not pay). Services not started still get URLs in the bench's port range, so
 * nothing reaches a developer's instance.
 */
export const BENCH_SERVICES = [
  "ledger",
  "schema-registry",
  "trust-registry",
  "auth-server",
  "credential-issuer",
  "verifier",
  "holder",
  "scheduler",
] as const;
export type BenchService = (typeof BENCH_SERVICES)[number];

export interface ServiceUrls {
  publicUrl: string;
  internalUrl: string;
}

export interface RunningPlatform {
  topology: "separate processes" | "all-in-one";
  urls: Record<BenchService, ServiceUrls>;
  /** Process id per service (the same pid for every service in all-in-one mode, keyed "all-in-one"). */
  processes: Map<string, number>;
  /** Where --cpu-prof wrote its profiles (when profiling). */
  profileDir: string | undefined;
  /** Per process (as in `processes`): what it asked PostgreSQL (with `countQueries` only). */
  counters: Map<string, PgCounter>;
  /** The all-in-one's embedded database (`--embedded`), from its ready report's `database URL (psql)` line. */
  embeddedDatabaseUrl?: string;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  allInOne: boolean;
  databaseUrl: string;
  portOffset: number;
  logLevel: string;
  /** Services to run under `node --cpu-prof` (all-in-one: any non-empty list profiles the one process). */
  profile: string[];
  /** Unique per run: prefix of every schema. */
  schemaPrefix: string;
  /** The services to start (in BENCH_SERVICES order). */
  services: BenchService[];
  /** Put a counting proxy between every process and PostgreSQL (adds a hop: not for timed runs). */
  countQueries: boolean;
  /**
   * How separate service processes run their code: `compiled` (plain node on JavaScript transpiled
   * to dist/bench by hack/build/compile.ts, the build the Dockerfile uses and `npm start` runs) or
   * `tsx` (node --import tsx on the sources). The same holds for the all-in-one process.
   */
  runtime: "compiled" | "tsx";
  /**
   * All-in-one only: the launcher's embedded database in the run's data folder, as `npm start`
   * runs on a new machine, instead of `databaseUrl` (whose backends then serve nothing).
   */
  embedded: boolean;
}

const prefixOf = (service: string) => service.toUpperCase().replace(/-/g, "_");
export const schemaOf = (prefix: string, service: string) => `${prefix}_${service.replace(/-/g, "_")}`;

/**
 * BENCH_TRACE_OPT=1: every child runs with `--trace-opt --trace-deopt`, and the functions V8
 * finished optimising and the deoptimisations it printed are counted per process (v8EventsOf).
 */
const TRACE_OPT = process.env.BENCH_TRACE_OPT === "1";
const v8Events = new Map<number, { optimised: number; deoptimised: number }>();

/** With BENCH_TRACE_OPT=1: optimisations and deoptimisations so far of `pids`; undefined otherwise. */
export function v8EventsOf(pids: number[]): { optimised: number; deoptimised: number } | undefined {
  if (!TRACE_OPT) return undefined;
  const total = { optimised: 0, deoptimised: 0 };
  for (const pid of pids) {
    total.optimised += v8Events.get(pid)?.optimised ?? 0;
    total.deoptimised += v8Events.get(pid)?.deoptimised ?? 0;
  }
  return total;
}

/** A child process with its output kept (the tail is shown when it fails). */
function startChild(name: string, args: string[], env: Env) {
  const traceArgs = TRACE_OPT ? ["--trace-opt", "--trace-deopt"] : [];
  const child = spawn(process.execPath, [...traceArgs, ...args], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events = { optimised: 0, deoptimised: 0 };
  if (child.pid !== undefined) v8Events.set(child.pid, events);
  let output = "";
  const append = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    if (TRACE_OPT) {
      // Lines may split across chunks; the markers are short, so a split one is rare and only undercounts.
      events.optimised += text.split("[completed optimizing").length - 1;
      events.deoptimised += text.split("[bailout").length - 1;
    }
    // The trace's lines would push the ready report (and a failure's cause) out of the kept tail.
    const kept = TRACE_OPT
      ? text
          .split("\n")
          .filter((line) => !line.startsWith("[") && !/^\s+;;;/.test(line))
          .join("\n")
      : text;
    output = (output + kept).slice(-20_000);
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, child, exited, output: () => output };
}

type Child = ReturnType<typeof startChild>;

/** The ready report's line naming the embedded database (hack/bench/all-in-one.ts prints it). */
const EMBEDDED_URL_LINE = /database URL \(psql\): (\S+)/;

/**
 * The embedded database's URL from the all-in-one's ready report. The services answer /health a
 * moment before the report is printed, so this waits for the line (at most 30 s); without it the
 * soak and the dead-row count would read the wrong database, so its absence stops the run.
 */
async function embeddedUrlOf(child: Child): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const url = EMBEDDED_URL_LINE.exec(child.output())?.[1];
    if (url) return url;
    if (child.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the all-in-one printed no "database URL (psql)" line:\n${child.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopChild(child: Child, timeoutMs = 30_000): Promise<void> {
  if (child.child.exitCode !== null || child.child.signalCode !== null) return;
  child.child.kill("SIGTERM");
  const timer = setTimeout(() => child.child.kill("SIGKILL"), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

async function waitHealthy(child: Child, targets: Array<{ service: string; url: string }>, timeoutMs: number) {
  const failed = child.exited.then((code) => {
    throw new Error(`${child.name} exited with ${code} while starting:\n${child.output()}`);
  });
  try {
    await Promise.race([waitForHealth(targets, { timeoutMs }), failed]);
  } catch (error) {
    child.child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n--- ${child.name} output ---\n${child.output()}`);
  }
  failed.catch(() => {});
}

/**
 * Starts the platform the way production runs it: one process per service (`node` on the compiled
 * JavaScript, or `node --import tsx services/<svc>/src/main.ts` with runtime `tsx`), each with the
 * environment the all-in-one launcher would build (service-env.ts, dev-secrets.ts), on PostgreSQL
 * with fresh schemas. With `allInOne`, the same services run in one
 * process through the launcher's startPlatform (bench-all-in-one.ts).
 */
/**
 * A scratch folder for an embedded database. mkdtemp makes it 0700; as root, the native PostgreSQL
 * server runs as another account, which could not reach a data folder inside it, and the platform
 * would fall back to PGlite, so the bench would not measure the default engine. 0755 lets it through
 * (the platform makes the data folder itself private).
 */
export function benchDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

export async function startBenchPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const dataDir = benchDataDir("attesto-bench-");
  const profileDir = options.profile.length > 0 ? join(repoRoot, "bench-profiles") : undefined;
  if (profileDir) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const inherited: Env = { ...process.env };
  for (const name of ["DATABASE_URL", "SERVICE_IDENTITY_PUBLIC_KEYS", "PORT_OFFSET", "ATTESTO_DATA_DIR"]) {
    delete inherited[name];
  }
  for (const module of platformServices) {
    inherited[`${prefixOf(module.definition.name)}_DATABASE_SCHEMA`] = schemaOf(
      options.schemaPrefix,
      module.definition.name,
    );
  }
  const secrets = developmentSecrets(dataDir, inherited);
  const env: Env = { ...inherited, ...secrets.values };
  // The launcher's development secrets do not include the holder's token secret yet (reported): supply one.
  if (!env.HOLDER_TOKEN_SECRET && !env.HOLDER_HOLDER_TOKEN_SECRET) {
    env.HOLDER_HOLDER_TOKEN_SECRET = randomBytes(32).toString("base64url");
  }
  const started = BENCH_SERVICES.filter((name) => options.services.includes(name));
  const addresses = planAddresses(platformServices, { host: "127.0.0.1", portOffset: options.portOffset }, env);
  const urlsOf = (name: string): ServiceUrls => {
    const address = addresses.find((a) => a.name === name)!;
    return { publicUrl: address.publicUrl, internalUrl: address.internalUrl };
  };
  const urls = Object.fromEntries(BENCH_SERVICES.map((name) => [name, urlsOf(name)])) as Record<
    BenchService,
    ServiceUrls
  >;
  const children: Child[] = [];
  const counters = new Map<string, PgCounter>();
  /** The database URL one process gets: PostgreSQL itself, or its own counting proxy. */
  const databaseUrlFor = async (name: string) => {
    if (!options.countQueries) return options.databaseUrl;
    const url = new URL(options.databaseUrl);
    const counter = new PgCounter({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = "127.0.0.1";
    url.port = String(await counter.listen());
    counters.set(name, counter);
    return url.toString();
  };
  const profileArgs = (name: string) =>
    profileDir && options.profile.includes(name)
      ? // One folder per service: every thread (main, and tsx's module-hooks thread) writes its own profile.
        ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, name)}`]
      : [];
  const stop = async () => {
    for (const child of [...children].reverse()) await stopChild(child);
    for (const counter of counters.values()) await counter.close();
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    if (options.allInOne) {
      const launcherEnv: Env = {
        ...env,
        DATABASE_URL: await databaseUrlFor("all-in-one"),
        PORT_OFFSET: String(options.portOffset),
        ATTESTO_DATA_DIR: dataDir,
        LOG_LEVEL: options.logLevel,
        BENCH_SERVICES: started.join(","),
      };
      if (options.embedded) delete launcherEnv.DATABASE_URL;
      const child = startChild(
        "all-in-one",
        [
          ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, "all-in-one")}`] : []),
          // As `npm start` runs it (hack/build/node-flags.mjs).
          ...ALL_IN_ONE_NODE_FLAGS,
          ...allInOneEntry(options.runtime),
        ],
        launcherEnv,
      );
      children.push(child);
      const targets = started.flatMap((name) => [
        { service: name, url: `${urls[name].publicUrl}/health` },
        { service: name, url: `${urls[name].internalUrl}/health` },
      ]);
      await waitHealthy(child, targets, 180_000);
      const embeddedDatabaseUrl = options.embedded ? await embeddedUrlOf(child) : undefined;
      return {
        topology: "all-in-one",
        urls,
        processes: new Map([["all-in-one", child.child.pid!]]),
        profileDir,
        counters,
        ...(embeddedDatabaseUrl ? { embeddedDatabaseUrl } : {}),
        stop,
      };
    }

    const processes = new Map<string, number>();
    const compiledRoot =
      options.runtime === "compiled" ? buildRuntimeTree(repoRoot, join(repoRoot, "dist", "bench")) : undefined;
    const entryArgs = (name: string) =>
      compiledRoot
        ? [join(compiledRoot, "services", name, "src", "main.js")]
        : ["--import", "tsx", `services/${name}/src/main.ts`];
    for (const name of started) {
      const index = platformServices.findIndex((module) => module.definition.name === name);
      const address = addresses[index]!;
      const serviceEnv = buildServiceEnv({
        address,
        addresses,
        env,
        logLevel: options.logLevel,
        databaseUrl: await databaseUrlFor(name),
        serviceIdentityPublicKeys: identityPublicKeysOf(env),
      });
      const child = startChild(name, [...profileArgs(name), ...entryArgs(name)], serviceEnv);
      children.push(child);
      await waitHealthy(
        child,
        [
          { service: name, url: address.healthUrls.public },
          { service: name, url: address.healthUrls.internal },
        ],
        120_000,
      );
      processes.set(name, child.child.pid!);
    }
    return { topology: "separate processes", urls, processes, profileDir, counters, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

/**
 * The all-in-one's entry (hack/bench/all-in-one.ts): compiled, as `npm start` runs it (the runtime
 * tree in dist/bench with the entry transpiled beside it, so `@attesto/*` resolve to the compiled
 * workspaces), or the TypeScript source under tsx.
 */
function allInOneEntry(runtime: "compiled" | "tsx"): string[] {
  if (runtime === "tsx") return ["--import", "tsx", "hack/bench/all-in-one.ts"];
  const root = buildRuntimeTree(repoRoot, join(repoRoot, "dist", "bench"));
  const entry = join(root, "bench-all-in-one.js");
  transpileFile(join(repoRoot, "hack", "bench", "all-in-one.ts"), entry);
  return [entry];
}

/** Every schema the run created, for dropping afterwards. */
export const benchSchemas = (schemaPrefix: string) =>
  platformServices.map((module) => schemaOf(schemaPrefix, module.definition.name));

export interface RunningPeer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The library peer (peer/main.ts): one process, in-memory, on `port`. Runs under tsx like the
 * all-in-one; after start-up tsx costs memory, not CPU per request.
 */
export async function startLibraryPeer(port: number): Promise<RunningPeer> {
  const child = startChild("library peer", ["--import", "tsx", "hack/bench/peer/main.ts"], {
    ...process.env,
    PEER_PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(child, [{ service: "library-peer", url: `${url}/health` }], 60_000);
  return { url, pid: child.child.pid!, stop: () => stopChild(child) };
}
