import type { Kysely } from "kysely";
import type { BrowserSessionRepository } from "../domain/ports.js";
import type { AuthServerTables } from "./tables.js";

/** Browser sessions on PostgreSQL, by the SHA-256 of their cookie. */
export function createBrowserSessionStore(database: Kysely<unknown>): BrowserSessionRepository {
  const db = database as Kysely<AuthServerTables>;
  return {
    async create(session) {
      await db
        .insertInto("browser_sessions")
        .values({ id_hash: session.idHash, created_at: session.createdAt, expires_at: session.expiresAt })
        .execute();
    },

    async isActive(idHash, now) {
      const row = await db
        .selectFrom("browser_sessions")
        .select("id_hash")
        .where("id_hash", "=", idHash)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return row !== undefined;
    },

    async end(idHash) {
      const result = await db.deleteFrom("browser_sessions").where("id_hash", "=", idHash).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
