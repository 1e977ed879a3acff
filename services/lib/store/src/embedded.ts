import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PgliteWireServer } from "./pglite-wire-server.js";

/**
 * Settings for the embedded database, on top of PGlite's own. PGlite is one backend in this
 * process's WASM memory, and that memory never shrinks, so PostgreSQL's server defaults (sized for
 * a dedicated machine) are paid in RSS: shared_buffers 128MB alone grows the WASM memory past its
 * initial 128 MiB and costs ~130 MiB of idle RSS. A development database of a few MB is served
 * from 32MB of buffers and the operating system's page cache behind them; max_connections is
 * moot for a single backend (the wire server shares it), but sizes shared tables (PGPROC, the lock
 * table: max_locks_per_transaction x max_connections slots, kept at the default 6400).
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: "32MB",
  max_connections: "10",
  max_locks_per_transaction: "640",
};

export interface EmbeddedPostgres {
  /** postgres:// URL that any pg client can use. */
  url: string;
  close(): Promise<void>;
}

/**
 * PGlite (WASM PostgreSQL) served over the Postgres wire protocol, so services, kysely and pg-boss
 * use the ordinary `pg` driver against it. `dataDir` persists data; omit it for memory only.
 */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; host?: string; port?: number } = {},
): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    startParams: [
      ...PGlite.defaultStartParams,
      ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ],
  });
  const host = options.host ?? "127.0.0.1";
  const server = new PgliteWireServer(db);
  let port: number;
  try {
    port = await server.listen(host, options.port ?? 0);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url: `postgres://postgres@${host}:${port}/postgres?sslmode=disable`,
    async close() {
      await server.close();
      await db.close();
    },
  };
}
