import { type Kysely, type Migration, sql } from "kysely";

/**
 * The authorization-code flow: pushed authorization requests and their browser step, authorization
 * codes (SHA-256 only), tokens revoked because their code was replayed, and browser sessions.
 * Frozen: changes go in new migrations.
 */
export const createAuthorizationCodeFlow: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("authorization_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("request_uri_hash", "text", (c) => c.notNull().unique())
      .addColumn("client_id", "text", (c) => c.notNull())
      .addColumn("redirect_uri", "text", (c) => c.notNull())
      .addColumn("code_challenge", "text", (c) => c.notNull())
      .addColumn("state", "text")
      .addColumn("issuer_state", "text")
      .addColumn("tenant", "text")
      .addColumn("offer_id", "text")
      .addColumn("credential_configuration_ids", sql`text[]`, (c) => c.notNull())
      .addColumn("dpop_jkt", "text")
      .addColumn("client_attested", "boolean", (c) => c.notNull())
      .addColumn("status", "text", (c) =>
        c.notNull().check(sql`status IN ('pushed', 'presented', 'approved', 'denied')`),
      )
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("browser_session_hash", "text")
      .addColumn("csrf_token_hash", "text")
      .addColumn("consent_expires_at", "timestamptz")
      .addColumn("completed_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("authorization_requests_created_at")
      .on("authorization_requests")
      .column("created_at")
      .execute();

    await db.schema
      .createTable("authorization_codes")
      .addColumn("code_hash", "text", (c) => c.primaryKey())
      .addColumn("authorization_request_id", "text", (c) =>
        c.notNull().references("authorization_requests.id").onDelete("cascade"),
      )
      .addColumn("client_id", "text", (c) => c.notNull())
      .addColumn("redirect_uri", "text", (c) => c.notNull())
      .addColumn("code_challenge", "text", (c) => c.notNull())
      .addColumn("dpop_jkt", "text")
      .addColumn("client_attested", "boolean", (c) => c.notNull())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("offer_id", "text", (c) => c.notNull())
      .addColumn("credential_configuration_ids", sql`text[]`, (c) => c.notNull())
      .addColumn("dpop_required", "boolean", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("redeemed_at", "timestamptz")
      .addColumn("access_token_jti", "text")
      .addColumn("access_token_expires_at", "timestamptz")
      .addColumn("revoked_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("authorization_codes_expires_at")
      .on("authorization_codes")
      .column("expires_at")
      .execute();

    await db.schema
      .createTable("revoked_access_tokens")
      .addColumn("jti", "text", (c) => c.primaryKey())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("revoked_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("reason", "text", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("browser_sessions")
      .addColumn("id_hash", "text", (c) => c.primaryKey())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("browser_sessions_expires_at").on("browser_sessions").column("expires_at").execute();
  },
};
