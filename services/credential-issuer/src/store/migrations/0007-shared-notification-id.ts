import type { Kysely, Migration } from "kysely";

/**
 * OID4VCI notifications: one notification_id per credential response, so the credentials of a
 * batch share it. Migration 0006 made it unique per credential; it is now looked up per tenant and
 * offer. Frozen: later changes go in new migrations.
 */
export const shareNotificationId: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("credentials").dropConstraint("credentials_notification_id_key").execute();
    await db.schema
      .createIndex("credentials_notification")
      .on("credentials")
      .columns(["notification_id", "tenant", "offer_id"])
      .where("notification_id", "is not", null)
      .execute();
  },
};
