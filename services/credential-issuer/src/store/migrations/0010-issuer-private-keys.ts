import { type Kysely, type Migration, sql } from "kysely";

/**
 * DID-path issuer keys kept once per tenant and key instead of sealed into every offer (issue 28,
 * item 4). Frozen: later changes go in new migrations.
 *
 * - `issuer_private_keys`: one row per (tenant, key), `id` = `<tenant>:<RFC 7638 thumbprint of the
 *   public key>`; `sealed_private_key` is the private JWK sealed under the key-encryption key with
 *   context `issuer-key:<id>` (rewrapped at start-up like every envelope). A row never changes: a
 *   thumbprint names exactly one private key, so a copy cached by it is never stale.
 * - `offers.issuer_key_thumbprint`: the key a DID-path offer signs with, in `issuer_private_keys`.
 *   Offers made before keep their own `issuer_key_sealed` (context `offer:<id>`) and sign with it;
 *   a DID-path offer has exactly one of the two, an X.509 offer neither.
 */
export const createIssuerPrivateKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("issuer_private_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("tenant", "text", (c) => c.notNull())
      .addColumn("sealed_private_key", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema.alterTable("offers").addColumn("issuer_key_thumbprint", "text").execute();
    // A DID-path offer names its key one way exactly; an X.509 offer neither way.
    await db.schema
      .alterTable("offers")
      .addCheckConstraint(
        "offers_issuer_key_check",
        sql`(issuer_key_sealed IS NOT NULL)::int + (issuer_key_thumbprint IS NOT NULL)::int = (signing_mode = 'did')::int`,
      )
      .execute();
  },
};
