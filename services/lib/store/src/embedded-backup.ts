import {
  chmodSync,
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import pg from "pg";
import tar from "tar-stream";
import { CLUSTER_FOLDER, type ClusterEngine, isAlive, isCluster } from "./cluster-files.js";
import { socketUrl } from "./embedded-socket.js";

export { CLUSTER_FOLDER, type ClusterEngine };

/**
 * Backup and restore of the embedded database's data folder (`attesto backup` / `attesto restore`):
 * a gzip'd tar (`tar tzf` lists it) of the engine's cluster folder and the development secrets
 * its data is encrypted under, plus a manifest. Physical, because the package ships no pg_dump:
 *
 * - native PostgreSQL, running: PostgreSQL's low-level base backup (pg_backup_start, copy the
 *   files, pg_backup_stop, then the WAL written meanwhile and the backup_label it returns); the
 *   restored cluster replays that WAL on its next start and comes up as of the backup's end;
 * - stopped (either engine): the folder as it is (cleanly shut down);
 * - PGlite, running: refused (its files are only consistent when it is stopped).
 *
 * A restore goes into a data folder holding no database and no secrets, with the platform stopped.
 */

const SECRETS_FILE = "secrets.json";
const MANIFEST = "attesto-backup.json";
const FORMAT = "attesto-backup/1";
/** The all-in-one's lock file in the data folder: its pid while it runs. */
const LOCK_FILE = "attesto.pid";

/** Cluster files a base backup leaves out (PostgreSQL's own list for pg_basebackup, in short). */
const SKIPPED_FILES = new Set(["postmaster.pid", "postmaster.opts", "backup_label", "tablespace_map"]);
/** Folders copied empty: runtime state, and pg_wal (its needed part follows pg_backup_stop). */
const EMPTIED_DIRS = new Set([
  "pg_wal",
  "pg_replslot",
  "pg_dynshmem",
  "pg_notify",
  "pg_serial",
  "pg_snapshots",
  "pg_stat_tmp",
  "pg_subtrans",
]);
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

export class BackupError extends Error {
  override name = "BackupError";
}

interface Manifest {
  format: string;
  engine: ClusterEngine;
  createdAt: string;
  /** Taken from a running server (base backup) or from a stopped folder. */
  live: boolean;
}

/** Whether an Attesto platform runs on the data folder (its lock names a live process). */
export function platformRunsOn(dataDir: string): boolean {
  try {
    return isAlive(Number(readFileSync(join(dataDir, LOCK_FILE), "utf8").trim()));
  } catch {
    return false;
  }
}

/** The engine whose cluster the data folder holds, if any. */
export function clusterEngineOf(dataDir: string): ClusterEngine | undefined {
  return (Object.keys(CLUSTER_FOLDER) as ClusterEngine[]).find((engine) =>
    isCluster(join(dataDir, CLUSTER_FOLDER[engine])),
  );
}

/** Where a running native server listens, from its postmaster.pid (line 4 port, 5 socket folder, 6 address). */
function runningServerUrl(clusterDir: string): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(clusterDir, "postmaster.pid"), "utf8").split("\n");
  } catch {
    return undefined;
  }
  if (!isAlive(Number(lines[0]))) return undefined;
  const [port, socketDir, address] = [lines[3]?.trim(), lines[4]?.trim(), lines[5]?.trim()];
  if (socketDir) return socketUrl(socketDir).replace(":5432/", `:${port}/`);
  if (address && address !== "*") return `postgres://postgres@${address}:${port}/postgres?sslmode=disable`;
  return undefined;
}

type Pack = ReturnType<typeof tar.pack>;

function addEntry(pack: Pack, name: string, content: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry({ name, mode: 0o600, type: "file" }, content, (error) => (error ? reject(error) : resolve()));
  });
}

/** Adds the files under `dir` as `<prefix>/...`; files that disappear meanwhile (a running server's temporaries) are skipped. */
async function addTree(
  pack: Pack,
  dir: string,
  prefix: string,
  skip: (path: string, isDir: boolean) => "skip" | "empty" | "keep",
) {
  pack.entry({ name: prefix, mode: 0o700, type: "directory" });
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const name = `${prefix}/${entry.name}`;
    const decision = skip(path, entry.isDirectory());
    if (decision === "skip") continue;
    if (entry.isDirectory()) {
      if (decision === "empty") pack.entry({ name, mode: 0o700, type: "directory" });
      else await addTree(pack, path, name, skip);
    } else if (entry.isFile()) {
      let content: Buffer;
      try {
        content = readFileSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      await addEntry(pack, name, content);
    }
  }
}

/** What of the cluster goes into the archive, at the top level of `clusterDir`. */
const clusterFilter = (clusterDir: string) => (path: string, isDir: boolean) => {
  const top = relative(clusterDir, path).split(sep);
  if (top.length !== 1) return "keep";
  const name = top[0]!;
  if (!isDir && (SKIPPED_FILES.has(name) || name.startsWith(".s.PGSQL."))) return "skip";
  if (isDir && EMPTIED_DIRS.has(name)) return "empty";
  return "keep";
};

/** Writes the archive through a temporary file renamed into place, mode 0600 (it holds the secrets). */
async function writeArchive(file: string, fill: (pack: Pack) => Promise<void>): Promise<void> {
  const partial = `${file}.partial-${process.pid}`;
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(partial, { mode: 0o600 }));
  try {
    await fill(pack);
    pack.finalize();
    await written;
    chmodSync(partial, 0o600);
    renameSync(partial, file);
  } catch (error) {
    pack.destroy();
    await written.catch(() => {});
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A base backup of the running native server: files between pg_backup_start and pg_backup_stop, then the WAL and the label. */
async function baseBackup(pack: Pack, clusterDir: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let stopped = false;
  try {
    const started = await client.query<{ first: string }>(
      "SELECT pg_walfile_name(pg_backup_start('attesto backup', true)) AS first",
    );
    const firstSegment = started.rows[0]!.first;
    await addTree(pack, clusterDir, CLUSTER_FOLDER.postgres, clusterFilter(clusterDir));
    const stop = await client.query<{ labelfile: string; spcmapfile: string }>(
      "SELECT labelfile, spcmapfile FROM pg_backup_stop(false)",
    );
    stopped = true;
    const walDir = join(clusterDir, "pg_wal");
    const segments = readdirSync(walDir).filter((name) => WAL_SEGMENT.test(name) && name >= firstSegment);
    if (!segments.includes(firstSegment)) {
      throw new BackupError("the WAL the backup needs was recycled meanwhile; run attesto backup again");
    }
    for (const segment of segments.sort()) {
      await addEntry(pack, `${CLUSTER_FOLDER.postgres}/pg_wal/${segment}`, readFileSync(join(walDir, segment)));
    }
    await addEntry(pack, `${CLUSTER_FOLDER.postgres}/backup_label`, stop.rows[0]!.labelfile);
    if (stop.rows[0]!.spcmapfile) {
      await addEntry(pack, `${CLUSTER_FOLDER.postgres}/tablespace_map`, stop.rows[0]!.spcmapfile);
    }
  } finally {
    if (!stopped) await client.query("SELECT pg_backup_stop(false)").catch(() => {});
    await client.end().catch(() => {});
  }
}

/**
 * Backs up the embedded database of `dataDir` (and its development secrets) into `file`. Running
 * native PostgreSQL: an online base backup; a stopped platform: a copy of the folder; running
 * PGlite: refused (stop the platform first).
 */
export async function backupDataDir(dataDir: string, file: string): Promise<Manifest> {
  const engine = clusterEngineOf(dataDir);
  if (!engine) throw new BackupError(`${dataDir} holds no embedded database`);
  const clusterDir = join(dataDir, CLUSTER_FOLDER[engine]);
  const running = platformRunsOn(dataDir);
  const url = engine === "postgres" ? runningServerUrl(clusterDir) : undefined;
  if (engine === "pglite" && running) {
    throw new BackupError(
      "the PGlite database can only be backed up while the platform is stopped: stop it, then run attesto backup again",
    );
  }
  if (engine === "postgres" && running && !url) {
    throw new BackupError(
      `the platform runs, but its database server was not found (${join(clusterDir, "postmaster.pid")})`,
    );
  }
  const manifest: Manifest = { format: FORMAT, engine, createdAt: new Date().toISOString(), live: url !== undefined };
  mkdirSync(dirname(file), { recursive: true });
  await writeArchive(file, async (pack) => {
    await addEntry(pack, MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
    const secrets = join(dataDir, SECRETS_FILE);
    if (existsSync(secrets)) await addEntry(pack, SECRETS_FILE, readFileSync(secrets));
    if (url) await baseBackup(pack, clusterDir, url);
    else await addTree(pack, clusterDir, CLUSTER_FOLDER[engine], clusterFilter(clusterDir));
  });
  return manifest;
}

/** An archive entry's path, checked: relative, no `..`, inside the cluster folder, the secrets or the manifest. */
function checkedName(name: string): string {
  const normal = posix.normalize(name).replace(/\/$/, "");
  const top = normal.split("/")[0]!;
  const allowed =
    normal === MANIFEST || normal === SECRETS_FILE || top === CLUSTER_FOLDER.postgres || top === CLUSTER_FOLDER.pglite;
  if (normal.startsWith("/") || normal.split("/").includes("..") || !allowed) {
    throw new BackupError("the backup file holds an unexpected entry: not an attesto backup");
  }
  return normal;
}

/**
 * Restores a backup made by backupDataDir into `dataDir`, which must hold no database and no
 * secrets (move it away first: a restore never overwrites), with no platform running on it.
 * Everything is written private (folders 0700, files 0600) into a staging folder first, moved
 * into place when complete. The next `npm start` (with the same engine) serves it.
 */
export async function restoreDataDir(dataDir: string, file: string): Promise<Manifest> {
  if (platformRunsOn(dataDir)) throw new BackupError(`a platform runs on ${dataDir}: stop it first`);
  const occupied = [CLUSTER_FOLDER.postgres, CLUSTER_FOLDER.pglite, SECRETS_FILE].filter((name) =>
    existsSync(join(dataDir, name)),
  );
  if (occupied.length > 0) {
    throw new BackupError(
      `${dataDir} already holds ${occupied.join(", ")}: move the data folder away first (a restore never overwrites)`,
    );
  }
  if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) throw new BackupError(`${file} is not a file`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = join(dataDir, `.restoring-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  let manifest: Manifest | undefined;
  try {
    const extract = tar.extract();
    const done = pipeline(createReadStream(file), createGunzip(), extract);
    for await (const entry of extract) {
      const name = checkedName(entry.header.name);
      const target = join(staging, ...name.split("/"));
      if (entry.header.type === "directory") {
        mkdirSync(target, { recursive: true, mode: 0o700 });
        entry.resume();
        continue;
      }
      if (entry.header.type !== "file")
        throw new BackupError("the backup file holds an unexpected entry: not an attesto backup");
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, Buffer.concat(chunks), { mode: 0o600 });
      if (name === MANIFEST) manifest = JSON.parse(readFileSync(target, "utf8")) as Manifest;
    }
    await done;
    if (manifest?.format !== FORMAT || !CLUSTER_FOLDER[manifest.engine]) {
      throw new BackupError("the file is not an attesto backup (no manifest)");
    }
    const clusterFolder = CLUSTER_FOLDER[manifest.engine];
    if (!isCluster(join(staging, clusterFolder))) throw new BackupError("the backup holds no database");
    renameSync(join(staging, clusterFolder), join(dataDir, clusterFolder));
    if (existsSync(join(staging, SECRETS_FILE))) renameSync(join(staging, SECRETS_FILE), join(dataDir, SECRETS_FILE));
    return manifest;
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup file could not be read: ${(error as Error).message}`, { cause: error });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
