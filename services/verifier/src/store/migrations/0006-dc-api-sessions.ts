import { type Kysely, type Migration, sql } from "kysely";

/**
 * Digital Credentials API sessions (OID4VP 1.0 Appendix A): `response_mode` gains `dc_api` and
 * `dc_api.jwt`, and each such session gets a row of its DC API fields. Frozen.
 */
export const createDcApiSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("verification_sessions")
      .dropConstraint("verification_sessions_response_mode_check")
      .execute();
    await db.schema
      .alterTable("verification_sessions")
      .addCheckConstraint(
        "verification_sessions_response_mode_check",
        sql`response_mode IN ('direct_post', 'direct_post.jwt', 'dc_api', 'dc_api.jwt')`,
      )
      .execute();
    await db.schema
      .createTable("dc_api_sessions")
      .addColumn("session_id", "uuid", (c) => c.primaryKey().references("verification_sessions.id").onDelete("cascade"))
      .addColumn("expected_origins", "jsonb", (c) => c.notNull())
      .addColumn("signed", "boolean", (c) => c.notNull())
      .addColumn("origin", "text")
      .execute();
  },
};
