import { resolve } from "node:path";
import { BackupError, backupDataDir, restoreDataDir } from "@attesto/store/backup";
import type { CommandIo } from "./io.js";

/**
 * `attesto backup <file>`: the embedded database of the data folder (and its development secrets)
 * into one file, online while native PostgreSQL runs (see @attesto/store's embedded-backup.ts).
 * Exit 1 when it cannot be done (a message says why and what to do).
 */
export async function runBackup(options: { dataDir: string; file: string }, io: CommandIo): Promise<number> {
  const file = resolve(options.file);
  try {
    const manifest = await backupDataDir(options.dataDir, file);
    const how = manifest.live ? "online, from the running server" : "from the stopped data folder";
    io.out(`backed up the ${manifest.engine} database of ${options.dataDir} (${how}) to ${file}`);
    io.err("the file holds the platform's development secrets: keep it as private as the data folder");
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    io.err(`attesto: ${error.message}`);
    return 1;
  }
}

/** `attesto restore <file>`: into a data folder holding no database, with the platform stopped. */
export async function runRestore(options: { dataDir: string; file: string }, io: CommandIo): Promise<number> {
  try {
    const manifest = await restoreDataDir(options.dataDir, resolve(options.file));
    io.out(`restored the ${manifest.engine} database of ${manifest.createdAt} into ${options.dataDir}`);
    io.err(
      manifest.engine === "pglite"
        ? "start it with EMBEDDED_DATABASE_ENGINE=pglite npm start"
        : "start it with npm start",
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    io.err(`attesto: ${error.message}`);
    return 1;
  }
}
