import { type Kysely, type Migration, sql } from "kysely";

/** Notarizations, batches, webhook events, deliveries and the delivery log. Frozen: changes go in new migrations. */
export const createNotaryTables: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("batches")
      .addColumn("batch_id", "uuid", (c) => c.primaryKey())
      .addColumn("root", "text", (c) => c.notNull())
      .addColumn("size", "integer", (c) => c.notNull())
      .addColumn("state", "text", (c) =>
        c.notNull().check(sql`state IN ('pending', 'running', 'failed', 'anchored', 'dead')`),
      )
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("job_id", "text")
      .addColumn("next_attempt_at", "timestamptz")
      .addColumn("last_error", "text")
      .addColumn("dead_rounds", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("anchor", "jsonb")
      .addColumn("anchored_at", "timestamptz")
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex("batches_state").on("batches").columns(["state", "updated_at"]).execute();

    await db.schema
      .createTable("notarizations")
      .addColumn("object_id", "uuid", (c) => c.primaryKey())
      .addColumn("chain", "text", (c) => c.notNull())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("credential_id", "text", (c) => c.notNull().unique())
      .addColumn("digest", "text", (c) => c.notNull())
      .addColumn("salt", "text", (c) => c.notNull())
      .addColumn("salted_digest", "text", (c) => c.notNull())
      .addColumn("batch_id", "uuid", (c) => c.references("batches.batch_id"))
      .addColumn("leaf_index", "integer")
      .addColumn("inclusion_proof", "jsonb")
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    // The batch cutter reads the oldest unbatched rows.
    await db.schema
      .createIndex("notarizations_unbatched")
      .on("notarizations")
      .columns(["created_at", "object_id"])
      .where(sql.ref("batch_id"), "is", null)
      .execute();
    await db.schema.createIndex("notarizations_batch").on("notarizations").column("batch_id").execute();
    await db.schema.createIndex("notarizations_tenant").on("notarizations").columns(["tenant", "created_at"]).execute();

    await db.schema
      .createTable("webhook_events")
      .addColumn("event_id", "uuid", (c) => c.primaryKey())
      .addColumn("dedupe_key", "text", (c) => c.notNull().unique())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("job_id", "text")
      .addColumn("dispatched_at", "timestamptz")
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();

    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("delivery_id", "uuid", (c) => c.primaryKey())
      .addColumn("event_id", "uuid", (c) => c.notNull().references("webhook_events.event_id"))
      .addColumn("event_type", "text", (c) => c.notNull())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) =>
        c.notNull().check(sql`state IN ('pending', 'running', 'failed', 'delivered', 'dead')`),
      )
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("job_id", "text")
      .addColumn("next_attempt_at", "timestamptz")
      .addColumn("last_status_code", "integer")
      .addColumn("last_error", "text")
      .addColumn("delivered_at", "timestamptz")
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addUniqueConstraint("webhook_deliveries_event_url_key", ["event_id", "url"])
      .execute();
    await db.schema
      .createIndex("webhook_deliveries_tenant")
      .on("webhook_deliveries")
      .columns(["tenant", "created_at"])
      .execute();
    await db.schema
      .createIndex("webhook_deliveries_state")
      .on("webhook_deliveries")
      .columns(["state", "updated_at"])
      .execute();

    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "bigint", (c) => c.primaryKey().generatedAlwaysAsIdentity())
      .addColumn("delivery_id", "uuid", (c) => c.notNull().references("webhook_deliveries.delivery_id"))
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("finished_at", "timestamptz")
      .addColumn("status_code", "integer")
      .addColumn("error", "text")
      .execute();
    await db.schema
      .createIndex("webhook_attempts_delivery")
      .on("webhook_attempts")
      .columns(["delivery_id", "id"])
      .execute();
  },
};
