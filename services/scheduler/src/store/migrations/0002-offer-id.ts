import type { Kysely, Migration } from "kysely";

/** The credential issuer's offer id of a notarization, for the `offer_id` of its webhook events. */
export const addOfferId: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("notarizations").addColumn("offer_id", "text").execute();
  },
};
