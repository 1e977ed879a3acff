import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where the embedded database listens when no TCP address is asked for: a Unix domain socket. Its
 * clients (the services' `pg` pools, in the same process) then skip the loopback TCP stack, which
 * costs measurably less CPU per statement on both threads (hack/bench/README.md, "Lever: embedded
 * database over a Unix socket"), and only users allowed into the folder (and by the socket file's
 * mode) can connect, where a loopback port is open to every local user.
 *
 * The socket file is named as PostgreSQL names its own (`<dir>/.s.PGSQL.<port>`), so `psql` and
 * `pg` find it from the folder and a port number (a name only: nothing listens on that TCP port).
 */
export const SOCKET_PORT = 5432;

/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = process.platform === "darwin" ? 103 : 107;

export interface SocketPlace {
  /** The folder holding the socket file. */
  dir: string;
  /** The socket file. */
  path: string;
  /** `dir` was made for the socket (a private temporary folder): removed on close. */
  temporary: boolean;
}

const socketFileIn = (dir: string, port = SOCKET_PORT) => join(dir, `.s.PGSQL.${port}`);
const fits = (path: string) => Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;

/**
 * The socket's place: in `dataDir` when given and its path fits sun_path, else in a new private
 * temporary folder (mkdtemp: mode 0700). Undefined where no Unix socket can serve `pg`: Windows
 * (Node's pipe paths there are named pipes), or no temporary folder with a short enough path.
 */
export function socketPlace(dataDir?: string): SocketPlace | undefined {
  if (process.platform === "win32") return undefined;
  // Absolute: a URL's host is a socket folder only when it starts with "/".
  const dir = dataDir && resolve(dataDir);
  if (dir && fits(socketFileIn(dir))) return { dir, path: socketFileIn(dir), temporary: false };
  const parent = tmpdir();
  // mkdtemp adds six characters to the prefix; check before making a folder that could not serve.
  if (!fits(socketFileIn(join(parent, "attesto-pg-XXXXXX")))) return undefined;
  try {
    const temporary = mkdtempSync(join(parent, TEMPORARY_PREFIX));
    return { dir: temporary, path: socketFileIn(temporary), temporary: true };
  } catch {
    return undefined; // e.g. a read-only temporary folder
  }
}

/**
 * Removes a socket file left by a process that ended without closing its server (a crash, a
 * kill): binding fails with EADDRINUSE while the file exists. A socket something still answers on
 * is another live server of the same data folder, and is left alone (the bind then fails).
 */
export async function removeStaleSocket(path: string): Promise<void> {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isSocket()) return; // nothing there, or not ours to remove (the bind then fails)
  if (!(await answers(path))) rmSync(path, { force: true });
}

/** Prefix of the private temporary folders made for sockets (see socketPlace). */
const TEMPORARY_PREFIX = "attesto-pg-";

/** How old a temporary socket folder without a live socket must be to count as abandoned. */
const ABANDONED_AFTER_MS = 60_000;

/** Whether something answers on the Unix socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/**
 * Removes the temporary socket folders (`<tmpdir>/attesto-pg-*`) that starts which crashed or were
 * killed left behind: those of this user (or of `serverUid`, the account a native server ran as)
 * in which no socket answers, made over a minute ago. A folder some live server still answers in is left alone. Returns
 * how many were removed.
 */
export async function removeAbandonedSocketPlaces(serverUid?: number): Promise<number> {
  if (process.platform === "win32") return 0;
  const parent = tmpdir();
  const owners = new Set([process.getuid?.(), serverUid]);
  let removed = 0;
  let entries: string[];
  try {
    entries = readdirSync(parent).filter((entry) => entry.startsWith(TEMPORARY_PREFIX));
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const dir = join(parent, entry);
    try {
      const stat = lstatSync(dir);
      // A young folder may be another start's, between making it and binding its socket.
      if (!stat.isDirectory() || !owners.has(stat.uid) || Date.now() - stat.mtimeMs < ABANDONED_AFTER_MS) continue;
      const sockets = readdirSync(dir).filter((name) => name.startsWith(".s.PGSQL.") && !name.endsWith(".lock"));
      const live = await Promise.all(sockets.map((name) => answers(join(dir, name))));
      if (live.some(Boolean)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return removed;
}

/** Removes a temporary folder made for the socket (a server's close unlinks the socket file itself). */
export function removeSocketPlace(place: SocketPlace): void {
  if (place.temporary) rmSync(place.dir, { recursive: true, force: true });
}

/**
 * A postgres:// URL naming the socket: the host is the folder, percent-encoded, as libpq (`psql`)
 * and pg-connection-string (`pg`, pg-boss, kysely's pg pool) both read it; the port names the file.
 */
export function socketUrl(dir: string, database = "postgres"): string {
  return `postgres://postgres@${encodeURIComponent(dir)}:${SOCKET_PORT}/${database}?sslmode=disable`;
}

/**
 * Where a postgres:// URL points, as `net.connect` takes it: the socket file for a folder host (a
 * percent-encoded path, as socketUrl writes it), else the TCP host and port. For tools that speak
 * the wire protocol themselves (relays, raw test clients).
 */
export function netAddressOf(url: string): { path: string } | { host: string; port: number } {
  const { hostname, port } = new URL(url);
  const host = decodeURIComponent(hostname);
  const number = Number(port || SOCKET_PORT);
  return host.startsWith("/") ? { path: socketFileIn(host, number) } : { host, port: number };
}
