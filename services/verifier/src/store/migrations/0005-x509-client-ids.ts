import type { Kysely, Migration } from "kysely";

/**
 * Sessions signed by the tenant's verifier certificate (`client_id_prefix` x509_hash / x509_san_dns:
 * the custody key id and the chain pinned at creation) and the same-device `response_code` (its
 * SHA-256 only); the verifier certificate a policy names. Frozen.
 */
export const addX509ClientIds: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("verification_sessions")
      .addColumn("client_id_prefix", "text")
      .addColumn("signing_key_id", "text")
      .addColumn("request_x5c", "jsonb")
      .addColumn("response_code_hash", "text")
      .execute();
    await db.schema.alterTable("verifier_policies").addColumn("verifier_certificate", "text").execute();
  },
};
