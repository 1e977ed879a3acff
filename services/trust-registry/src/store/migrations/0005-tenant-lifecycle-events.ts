import type { Kysely, Migration } from "kysely";

/**
 * The audit record of tenant lifecycle transitions (deactivated by DeleteTenant, reactivated by
 * ApplyTenant): who (the calling service identity), what, when. Written in the transaction of the
 * change. Frozen: changes go in new migrations.
 */
export const createTenantLifecycleEvents: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("tenant_lifecycle_events")
      .addColumn("id", "bigserial", (column) => column.primaryKey())
      .addColumn("tenant", "text", (column) => column.notNull())
      .addColumn("event", "text", (column) => column.notNull())
      .addColumn("actor", "text", (column) => column.notNull())
      .addColumn("at", "timestamptz", (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex("tenant_lifecycle_events_tenant")
      .on("tenant_lifecycle_events")
      .columns(["tenant", "at"])
      .execute();
  },
};
