import type { Kysely, Migration } from "kysely";

/**
 * Credentials drawn per offer (so per access token) and credential configuration: the batch_size
 * bound of POST /credential. Frozen: later changes go in new migrations.
 */
export const createIssuanceAllowances: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("issuance_allowances")
      .addColumn("offer_id", "text", (c) => c.notNull())
      .addColumn("credential_configuration_id", "text", (c) => c.notNull())
      .addColumn("issued", "integer", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("issuance_allowances_pkey", ["offer_id", "credential_configuration_id"])
      .execute();
  },
};
