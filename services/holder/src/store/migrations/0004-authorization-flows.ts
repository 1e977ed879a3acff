import { type Kysely, type Migration, sql } from "kysely";

/**
 * Authorization code flows in progress (POST /v1/oid4vci/authorize until the browser returns to
 * the callback). Found by the SHA-256 of their `state`; what the callback needs (PKCE verifier,
 * DPoP and attestation instance keys, the holder's private key, issuer and authorization server
 * metadata) is sealed in `sealed_content` and erased once the flow ends. Frozen: changes go in new
 * migrations.
 */
export const createAuthorizationFlows: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("authorization_flows")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("user_uuid", "uuid", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
      .addColumn("state_hash", "text", (c) => c.notNull().unique())
      .addColumn("status", "text", (c) =>
        c.notNull().check(sql`status IN ('pending', 'redeeming', 'completed', 'failed')`),
      )
      .addColumn("credential_issuer", "text", (c) => c.notNull())
      .addColumn("credential_configuration_id", "text", (c) => c.notNull())
      .addColumn("credential_id", "uuid")
      .addColumn("error", "text")
      .addColumn("error_description", "text")
      .addColumn("sealed_content", "text")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("ended_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("authorization_flows_user_uuid")
      .on("authorization_flows")
      .columns(["user_uuid", "status"])
      .execute();
    await db.schema
      .createIndex("authorization_flows_expires_at")
      .on("authorization_flows")
      .column("expires_at")
      .execute();
  },
};
