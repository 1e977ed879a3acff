import { type Kysely, type Migration, sql } from "kysely";

/**
 * Tenants, their API key hashes and credential configurations. Uniqueness of the tenant and of
 * the email (ignoring case) is enforced here, so concurrent duplicate applications cannot both win;
 * the index names are what the store maps to the 409 messages. Frozen: changes go in new migrations.
 */
export const createTenants: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("tenants")
      .addColumn("account_uuid", "uuid", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("email", "text")
      .addColumn("password_hash", "text")
      .addColumn("is_issuer", "boolean", (c) => c.notNull())
      .addColumn("is_verifier", "boolean", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('APPROVED', 'PENDING')`))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("tenants_email_key").on("tenants").unique().expression(sql`lower(email)`).execute();
    await db.schema.createIndex("tenants_tenant_key").on("tenants").unique().column("tenant").execute();

    await db.schema
      .createTable("api_keys")
      .addColumn("key_hash", "text", (c) => c.primaryKey())
      .addColumn("account_uuid", "uuid", (c) => c.notNull().references("tenants.account_uuid").onDelete("cascade"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("revoked_at", "timestamptz")
      .execute();
    await db.schema.createIndex("api_keys_account_uuid").on("api_keys").column("account_uuid").execute();

    await db.schema
      .createTable("tenant_credential_configurations")
      .addColumn("tenant", "text", (c) => c.notNull().references("tenants.tenant").onDelete("cascade"))
      .addColumn("config_id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("version", "text", (c) => c.notNull())
      .addColumn("vct", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint("tenant_credential_configurations_pkey", ["tenant", "config_id"])
      .execute();
  },
};
