import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "./startup-error.js";

export interface DataDirLock {
  path: string;
  release(): void;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Claims the data folder for this process (a pid file), because two PGlite instances writing the
 * same folder corrupt it. A pid file left by a process that is gone is taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "attesto.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      return {
        path,
        release() {
          try {
            if (Number(readFileSync(path, "utf8")) === process.pid) rmSync(path, { force: true });
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(path, "utf8"));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
        throw new StartupError(
          `the data folder ${dir} is in use by another Attesto (pid ${owner}); stop it or set ATTESTO_DATA_DIR ` +
            `to another folder (delete ${path} if process ${owner} is not Attesto)`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new StartupError(`could not lock the data folder ${dir}`);
}
