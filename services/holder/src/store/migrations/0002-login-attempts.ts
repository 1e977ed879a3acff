import type { Kysely, Migration } from "kysely";

/**
 * Login throttling per (account, client network): failures and the time before which no further
 * attempt of that pair is answered. Not tied to `users`: unknown UUIDs are throttled alike (the
 * answer must not tell which accounts exist). Frozen: changes go in new migrations.
 */
export const createLoginAttempts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("login_attempts")
      .addColumn("account_uuid", "uuid", (c) => c.notNull())
      .addColumn("client", "text", (c) => c.notNull())
      .addColumn("failures", "integer", (c) => c.notNull())
      .addColumn("last_attempt_at", "timestamptz", (c) => c.notNull())
      .addColumn("blocked_until", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("login_attempts_pkey", ["account_uuid", "client"])
      .execute();
    await db.schema
      .createIndex("login_attempts_last_attempt_at")
      .on("login_attempts")
      .column("last_attempt_at")
      .execute();
  },
};
