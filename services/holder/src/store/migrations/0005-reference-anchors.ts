import type { Kysely, Migration } from "kysely";

/**
 * A notarized credential's issuer salt (from the credential response's `reference.issuer_salt`) and,
 * once its batch is anchored, the anchor (JSON): what the holder shows as the credential's complete
 * reference. Null for credentials received before, or from issuers that do not say. Frozen: changes
 * go in new migrations.
 */
export const addReferenceAnchors: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("credentials")
      .addColumn("reference_issuer_salt", "text")
      .addColumn("reference_anchor", "text")
      .execute();
  },
};
