import { type Kysely, type Migration, sql } from "kysely";

/**
 * Offers and issued credentials. Frozen: later changes go in new migrations.
 * `claims` is `json`, not `jsonb`, so the order of claims stays as the issuer gave it.
 */
export const createOffersAndCredentials: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("offers")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("credential_configuration_id", "text", (c) => c.notNull())
      .addColumn("vct", "text", (c) => c.notNull())
      .addColumn("claims", "json", (c) => c.notNull())
      .addColumn("signing_mode", "text", (c) => c.notNull().check(sql`signing_mode IN ('did', 'x509')`))
      .addColumn("issuer_did", "text")
      .addColumn("issuer_kid", "text")
      .addColumn("issuer_key_alg", "text")
      .addColumn("issuer_key_sealed", "text")
      .addColumn("flow", "text", (c) => c.notNull().check(sql`flow IN ('pre-authorized', 'authorization-code')`))
      .addColumn("pre_authorized_code_hash", "text", (c) => c.unique())
      .addColumn("pre_authorized_code_sealed", "text")
      .addColumn("tx_code_hash", "text")
      .addColumn("issuer_state", "text", (c) => c.unique())
      .addColumn("holder_did", "text")
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('offered', 'redeemed')`))
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("redeemed_at", "timestamptz")
      .addCheckConstraint(
        "offers_signing_key",
        sql`(signing_mode = 'x509') = (issuer_did IS NULL AND issuer_kid IS NULL AND issuer_key_sealed IS NULL)`,
      )
      .addCheckConstraint(
        "offers_grant",
        sql`(flow = 'pre-authorized') = (pre_authorized_code_hash IS NOT NULL AND pre_authorized_code_sealed IS NOT NULL AND issuer_state IS NULL)`,
      )
      .execute();
    await db.schema.createIndex("offers_tenant_created_at").on("offers").columns(["tenant", "created_at"]).execute();

    await db.schema
      .createTable("credentials")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("offer_id", "uuid", (c) => c.notNull())
      .addColumn("credential_configuration_id", "text", (c) => c.notNull())
      .addColumn("vct", "text", (c) => c.notNull())
      .addColumn("issuer_jwt_sha256", "text", (c) => c.notNull().unique())
      .addColumn("holder_key_thumbprint", "text", (c) => c.notNull())
      .addColumn("holder_did", "text")
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('active', 'revoked')`))
      .addColumn("issued_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("revoked_at", "timestamptz")
      .addColumn("ledger_chain", "text")
      .addColumn("ledger_object_id", "text")
      .addColumn("notarization_salt", "text")
      .execute();
    await db.schema.createIndex("credentials_offer_id").on("credentials").column("offer_id").execute();
  },
};
