import { type Kysely, type Migration, sql } from "kysely";

/** DIDs held by tenants; the private keys live in key custody. Frozen: changes go in new migrations. */
export const createTenantDids: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("tenant_dids")
      .addColumn("did", "text", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull().references("tenants.tenant").onDelete("cascade"))
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("custody_key_id", "text", (c) => c.notNull())
      .addColumn("method", "text", (c) => c.notNull().defaultTo("LEDGER"))
      .addColumn("source", "text", (c) => c.notNull().check(sql`source IN ('created', 'imported')`))
      .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("tenant_dids_tenant").on("tenant_dids").columns(["tenant", "created_at"]).execute();
  },
};
