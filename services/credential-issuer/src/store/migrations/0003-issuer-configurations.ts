import { type Kysely, type Migration, sql } from "kysely";

/**
 * Issuer configurations (IssuerService): one row per tenant that has one; a tenant without a row
 * gets the platform defaults. Frozen: later changes go in new migrations.
 */
export const createIssuerConfigurations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("issuer_configurations")
      .addColumn("tenant", "text", (c) => c.primaryKey())
      .addColumn("issuer_name", "text", (c) => c.notNull())
      .addColumn("credential_configurations", "jsonb", (c) => c.notNull())
      .addColumn("signing_mode", "text", (c) => c.check(sql`signing_mode IN ('did', 'x509')`))
      .addColumn("signing_key_id", "text")
      .addColumn("default_offer_ttl_seconds", "integer", (c) =>
        c.check(sql`default_offer_ttl_seconds BETWEEN 60 AND 86400`),
      )
      .addColumn("digest", "text", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .execute();
  },
};
