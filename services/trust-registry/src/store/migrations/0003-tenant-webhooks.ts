import { type Kysely, type Migration, sql } from "kysely";

/**
 * Each tenant's webhook endpoints and signing secret (for the scheduler). The secret is kept only
 * as an AES-256-GCM envelope under KEY_ENCRYPTION_KEYS, bound to the tenant. Frozen: changes go in
 * new migrations.
 */
export const createTenantWebhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("tenant_webhooks")
      .addColumn("tenant", "text", (c) => c.primaryKey().references("tenants.tenant").onDelete("cascade"))
      .addColumn("endpoints", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
      .addColumn("secret_envelope", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
  },
};
