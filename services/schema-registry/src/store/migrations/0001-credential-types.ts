import { type Kysely, type Migration, sql } from "kysely";

/**
 * Credential types (VCTs) keyed by (type, version). Frozen: later changes go in new migrations.
 * Documents are `json`, not `jsonb`: jsonb reorders object keys, and the order of a schema's
 * properties is the order of the claims (and of the wallet's display).
 */
export const createCredentialTypes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("credential_types")
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("version", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('active', 'deprecated', 'draft')`))
      .addColumn("use_case", "jsonb", (c) => c.notNull())
      .addColumn("display", "json", (c) => c.notNull())
      .addColumn("claim_display", "json", (c) => c.notNull())
      .addColumn("schema", "json", (c) => c.notNull())
      .addColumn("content_hash", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint("credential_types_pkey", ["type", "version"])
      .execute();
    await db.schema.createIndex("credential_types_updated_at").on("credential_types").column("updated_at").execute();
    await db.schema.createIndex("credential_types_created_at").on("credential_types").column("created_at").execute();
  },
};
