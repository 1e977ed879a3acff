import { type Kysely, type Migration, sql } from "kysely";

/**
 * Verifier policies (VerifierPolicyService), one row per tenant and policy name. Frozen: later
 * changes go in new migrations. X.509 roots are kept as base64 DER strings.
 */
export const createVerifierPolicies: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("verifier_policies")
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("trusted_issuer_dids", "jsonb", (c) => c.notNull())
      .addColumn("trusted_x509_roots", "jsonb", (c) => c.notNull())
      .addColumn("accepted_vcts", "jsonb", (c) => c.notNull())
      .addColumn("required_claims", "jsonb", (c) => c.notNull())
      .addColumn("verification_mode", "text", (c) => c.check(sql`verification_mode IN ('fail_fast', 'run_all')`))
      .addColumn("session_ttl_seconds", "integer")
      .addColumn("digest", "text", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("verifier_policies_pkey", ["tenant", "name"])
      .execute();
  },
};
