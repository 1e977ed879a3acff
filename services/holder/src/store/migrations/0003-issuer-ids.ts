import type { Kysely, Migration } from "kysely";

/**
 * The issuer's own ids of a received credential (its credential id and offer id, when the
 * credential response names them), so a wallet entry leads to the issuer's record. Null for
 * credentials received before, or from issuers that do not say. Frozen: changes go in new migrations.
 */
export const addIssuerIds: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("credentials")
      .addColumn("issuer_credential_id", "text")
      .addColumn("issuer_offer_id", "text")
      .execute();
  },
};
