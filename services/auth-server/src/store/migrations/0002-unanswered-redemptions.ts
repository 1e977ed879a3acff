import type { Kysely, Migration } from "kysely";

/**
 * Pre-authorized code redemptions whose answer the auth server never got (the credential issuer
 * may have committed them): by the code's SHA-256 (hex) and the redemption id the auth server
 * sent, kept until `expires_at`. See `domain/token/redeem-grant.ts`. Frozen: changes go in new
 * migrations.
 */
export const createUnansweredRedemptions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("unanswered_redemptions")
      .addColumn("code_hash", "text", (c) => c.notNull())
      .addColumn("redemption_id", "text", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("unanswered_redemptions_pkey", ["code_hash", "redemption_id"])
      .execute();
    await db.schema
      .createIndex("unanswered_redemptions_expires_at")
      .on("unanswered_redemptions")
      .column("expires_at")
      .execute();
  },
};
