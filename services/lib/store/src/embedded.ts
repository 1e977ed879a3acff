import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PgliteWireServer } from "./pglite-wire-server.js";

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
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
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
