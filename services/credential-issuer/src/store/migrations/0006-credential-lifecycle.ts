import { type Kysely, type Migration, sql } from "kysely";

/**
 * The credential lifecycle (this service's README, "Credential status"): Token Status Lists, each
 * credential's entry in one, the `suspended` status, the history of status changes and the
 * OID4VCI notifications wallets send. Frozen: later changes go in new migrations.
 *
 * - `status_lists`: one row per list. `statuses` is the uncompressed byte array the public token
 *   is built from (2 bits per entry); a change rewrites one byte of it in one statement, so a
 *   reader sees the list before or after a change, never between. `allocated` has one bit per
 *   index handed out (indexes are drawn at random among the free ones, never reused). `signer`
 *   is the key the list's tokens are signed with: `x509` (the tenant's custody key) or
 *   `<kid> <JWK thumbprint>` of a DID-path key, whose private key is sealed with
 *   `signing_offer_id`. A credential's list is signed by the key that signed the credential.
 * - `credential_status_changes`: every status change, with its time and actor.
 */
export const createCredentialLifecycle: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("status_lists")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("signer", "text", (c) => c.notNull())
      .addColumn("signing_offer_id", "uuid")
      .addColumn("size", "integer", (c) => c.notNull().check(sql`size > 0 AND size % 8 = 0`))
      .addColumn("bits", "smallint", (c) => c.notNull().check(sql`bits IN (1, 2, 4, 8)`))
      .addColumn("statuses", "bytea", (c) => c.notNull())
      .addColumn("allocated", "bytea", (c) => c.notNull())
      .addColumn("allocated_count", "integer", (c) => c.notNull())
      .addColumn("version", "bigint", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addCheckConstraint("status_lists_signer", sql`(signer = 'x509') = (signing_offer_id IS NULL)`)
      .addCheckConstraint("status_lists_allocated_count", sql`allocated_count BETWEEN 0 AND size`)
      .execute();
    await db.schema
      .createIndex("status_lists_open")
      .on("status_lists")
      .columns(["tenant", "signer", "created_at"])
      .where(sql.ref("allocated_count"), "<", sql.ref("size"))
      .execute();

    await db.schema.alterTable("credentials").dropConstraint("credentials_status_check").execute();
    await db.schema
      .alterTable("credentials")
      .addCheckConstraint("credentials_status_check", sql`status IN ('active', 'suspended', 'revoked')`)
      .execute();
    await db.schema
      .alterTable("credentials")
      .addColumn("status_list_id", "uuid")
      .addColumn("status_idx", "integer")
      .addColumn("status_changed_at", "timestamptz")
      .addColumn("notification_id", "text", (c) => c.unique())
      .addColumn("notification_event", "text")
      .addColumn("notification_event_description", "text")
      .addColumn("notified_at", "timestamptz")
      .execute();
    await db.schema
      .alterTable("credentials")
      .addUniqueConstraint("credentials_status_entry", ["status_list_id", "status_idx"])
      .execute();
    await db.schema
      .alterTable("credentials")
      .addCheckConstraint("credentials_status_entry_pair", sql`(status_list_id IS NULL) = (status_idx IS NULL)`)
      .execute();
    await db.schema
      .createIndex("credentials_tenant_issued_at")
      .on("credentials")
      .columns(["tenant", "issued_at", "id"])
      .execute();

    await db.schema
      .createTable("credential_status_changes")
      .addColumn("id", "uuid", (c) => c.primaryKey())
      .addColumn("credential_id", "uuid", (c) => c.notNull())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("from_status", "text", (c) => c.notNull())
      .addColumn("to_status", "text", (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("changed_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("credential_status_changes_credential")
      .on("credential_status_changes")
      .columns(["credential_id", "changed_at"])
      .execute();
  },
};
