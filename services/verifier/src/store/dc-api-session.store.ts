import { type Kysely, sql } from "kysely";
import type { DcApiSession } from "../domain/dc-api/dc-api-session.js";
import type { DcApiSessionRepository } from "../domain/ports.js";

/** Row of `dc_api_sessions` (migration 0006; jsonb read back parsed). */
export interface DcApiSessionsTable {
  session_id: string;
  expected_origins: string[];
  signed: boolean;
  origin: string | null;
}

/** The DC API side of sessions on PostgreSQL (`database` is bound to the verifier's schema). */
export function createDcApiSessionStore(database: Kysely<unknown>): DcApiSessionRepository {
  const db = database as Kysely<{ dc_api_sessions: DcApiSessionsTable }>;
  return {
    async insert(session: Omit<DcApiSession, "origin">) {
      await db
        .insertInto("dc_api_sessions")
        .values({
          session_id: session.sessionId,
          // JSON text cast in the statement: pg would send a JS array as a PostgreSQL array.
          expected_origins: sql<never>`${JSON.stringify(session.expectedOrigins)}::jsonb`,
          signed: session.signed,
          origin: null,
        })
        .execute();
    },
    async find(sessionId: string) {
      const row = await db
        .selectFrom("dc_api_sessions")
        .selectAll()
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        sessionId: row.session_id,
        expectedOrigins: row.expected_origins,
        signed: row.signed,
        origin: row.origin ?? undefined,
      };
    },
    async recordOrigin(sessionId: string, origin: string) {
      await db.updateTable("dc_api_sessions").set({ origin }).where("session_id", "=", sessionId).execute();
    },
  };
}
