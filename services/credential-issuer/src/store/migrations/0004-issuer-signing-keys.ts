import { type Kysely, type Migration, sql } from "kysely";

/**
 * The public keys a tenant signs DID-path credentials with, one row per (tenant, kid): what its
 * JWT VC Issuer Metadata lists. Rows are written when an offer's issuer key is verified (earlier
 * offers are recorded at start-up). Frozen: later changes go in new migrations.
 */
export const createIssuerSigningKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("issuer_signing_keys")
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("kid", "text", (c) => c.notNull())
      .addColumn("did", "text", (c) => c.notNull())
      .addColumn("public_jwk", "jsonb", (c) => c.notNull())
      .addColumn("alg", "text", (c) => c.notNull().check(sql`alg IN ('EdDSA', 'ES256')`))
      .addColumn("first_used_at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("issuer_signing_keys_pkey", ["tenant", "kid"])
      .execute();
  },
};
