import type { Kysely, Migration } from "kysely";

/**
 * TenantService.DeleteTenant deactivates instead of deleting: the row (and with it the tenant
 * identifier, DIDs and configurations) stays, hidden from every lookup while `deactivated_at` is set.
 * Frozen: changes go in new migrations.
 */
export const addTenantDeactivation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("tenants").addColumn("deactivated_at", "timestamptz").execute();
  },
};
