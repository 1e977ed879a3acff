import type { Kysely, Migration } from "kysely";

/**
 * Issuer configurations may set the size of the tenant's new status lists (`Issuer.spec.statusListSize`);
 * null: the platform default (STATUS_LIST_SIZE). Checked by the domain (@attesto/runtime/status-list-size).
 * Frozen: later changes go in new migrations.
 */
export const addIssuerStatusListSize: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("issuer_configurations").addColumn("status_list_size", "integer").execute();
  },
};
