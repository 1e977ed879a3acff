import { type Kysely, type Migration, sql } from "kysely";

/**
 * Verification sessions (one OID4VP authorization request each). Frozen: later changes go in new
 * migrations. Key envelopes are AES-256-GCM sealed and set to NULL once the session has ended.
 */
export const createVerificationSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("verification_sessions")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("request_uri_id", "text", (c) => c.notNull().unique())
      .addColumn("state", "text", (c) => c.notNull().unique())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("client_id", "text", (c) => c.notNull())
      .addColumn("request_kid", "text")
      .addColumn("response_mode", "text", (c) =>
        c.notNull().check(sql`response_mode IN ('direct_post', 'direct_post.jwt')`),
      )
      .addColumn("dcql_query", "json", (c) => c.notNull())
      .addColumn("client_metadata", "json")
      .addColumn("redirect_uri", "text")
      .addColumn("encryption_kid", "text", (c) => c.unique())
      .addColumn("encryption_public_jwk", "json")
      .addColumn("signing_key_envelope", "text")
      .addColumn("encryption_key_envelope", "text")
      .addColumn("status", "text", (c) =>
        c.notNull().check(sql`status IN ('pending', 'in_progress', 'completed', 'failed')`),
      )
      .addColumn("verification_mode", "text", (c) => c.check(sql`verification_mode IN ('fail_fast', 'run_all')`))
      .addColumn("check_results", "jsonb")
      .addColumn("presentation_metadata", "json")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("submitted_at", "timestamptz")
      .addColumn("verified_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("verification_sessions_keys_held")
      .on("verification_sessions")
      .column("expires_at")
      .where(sql.ref("signing_key_envelope"), "is not", null)
      .execute();
  },
};
