import type { Kysely, Migration } from "kysely";

/**
 * When ApplyTenant last reactivated a deactivated tenant: the credential issuer treats offers made
 * before it as expired, so a deactivation expires open offers for good. Frozen: changes go in new
 * migrations.
 */
export const addTenantReactivatedAt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("tenants").addColumn("reactivated_at", "timestamptz").execute();
  },
};
