import type { Kysely, Migration } from "kysely";

/** The idempotency key of the redemption that consumed a pre-authorized code (GrantService). Frozen. */
export const addOfferRedemptionId: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("offers").addColumn("redemption_id", "text").execute();
  },
};
