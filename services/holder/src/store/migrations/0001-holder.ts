import { type Kysely, type Migration, sql } from "kysely";

/**
 * Holder accounts, their DIDs and their credentials. A DID is unique per account (two accounts
 * that both prove the key may both hold it). Credentials are soft-deleted (`deleted_at`); their
 * raw SD-JWT and claims are kept sealed. Frozen: changes go in new migrations.
 */
export const createHolderTables: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("users")
      .addColumn("uuid", "uuid", (c) => c.primaryKey())
      .addColumn("name", "text")
      .addColumn("password_hash", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();

    await db.schema
      .createTable("holder_dids")
      .addColumn("user_uuid", "uuid", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
      .addColumn("did", "text", (c) => c.notNull())
      .addColumn("method", "text", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_jwk", "jsonb", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull().check(sql`source IN ('created', 'imported')`))
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('active')`))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint("holder_dids_pkey", ["user_uuid", "did"])
      .execute();

    await db.schema
      .createTable("credentials")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("user_uuid", "uuid", (c) => c.notNull().references("users.uuid").onDelete("cascade"))
      .addColumn("format", "text", (c) => c.notNull())
      .addColumn("vct", "text", (c) => c.notNull())
      .addColumn("issuer_did", "text", (c) => c.notNull())
      .addColumn("credential_issuer", "text", (c) => c.notNull())
      .addColumn("credential_configuration_id", "text", (c) => c.notNull())
      .addColumn("holder_did", "text", (c) => c.notNull())
      .addColumn("issued_at", "timestamptz")
      .addColumn("expires_at", "timestamptz")
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('active')`))
      .addColumn("reference_chain", "text")
      .addColumn("reference_object_id", "text")
      .addColumn("sealed_content", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("deleted_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("credentials_user_uuid_created_at")
      .on("credentials")
      .columns(["user_uuid", "created_at"])
      .where(sql.ref("deleted_at"), "is", null)
      .execute();
  },
};
