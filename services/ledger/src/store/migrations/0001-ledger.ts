import { type Kysely, type Migration, sql } from "kysely";

const HEX_64 = (column: string) => sql`${sql.ref(column)} ~ '^[0-9a-f]{64}$'`;

/** The log, its DIDs, notarizations, checkpoints and the ledger's key. Frozen: changes go in new migrations. */
export const createLedger: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("ledger_entries")
      .addColumn("sequence", "bigint", (c) => c.primaryKey().check(sql`sequence >= 0`))
      .addColumn("kind", "text", (c) =>
        c.notNull().check(sql`kind IN ('did.create', 'did.deactivate', 'notarization')`),
      )
      .addColumn("payload", "jsonb", (c) => c.notNull())
      .addColumn("leaf_hash", "text", (c) => c.notNull().check(HEX_64("leaf_hash")))
      .addColumn("prev_hash", "text", (c) => c.notNull().check(HEX_64("prev_hash")))
      // Unique: two entries after the same predecessor would be a fork.
      .addColumn("entry_hash", "text", (c) => c.notNull().unique().check(HEX_64("entry_hash")))
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addUniqueConstraint("ledger_entries_prev_hash_key", ["prev_hash"])
      .execute();

    await db.schema
      .createTable("dids")
      .addColumn("did", "text", (c) => c.primaryKey())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("public_jwk", "jsonb", (c) => c.notNull())
      .addColumn("document", "jsonb", (c) => c.notNull())
      .addColumn("deactivated", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_sequence", "bigint", (c) => c.notNull().unique().references("ledger_entries.sequence"))
      .addColumn("deactivated_sequence", "bigint", (c) => c.unique().references("ledger_entries.sequence"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("notarizations")
      .addColumn("object_id", "uuid", (c) => c.primaryKey())
      .addColumn("digest", "text", (c) => c.notNull().check(HEX_64("digest")))
      .addColumn("idempotency_key", "text", (c) => c.unique())
      .addColumn("sequence", "bigint", (c) => c.notNull().unique().references("ledger_entries.sequence"))
      .addColumn("recorded_at", "timestamptz", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("checkpoints")
      .addColumn("tree_size", "bigint", (c) => c.primaryKey().check(sql`tree_size >= 0`))
      .addColumn("root_hash", "text", (c) => c.notNull().check(HEX_64("root_hash")))
      .addColumn("signature_jws", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();

    // The private key is kept sealed (AES-256-GCM envelope) when key-encryption keys are configured,
    // in clear only when they are not: exactly one of the two columns is set.
    await db.schema
      .createTable("ledger_keys")
      .addColumn("purpose", "text", (c) => c.primaryKey())
      .addColumn("sealed_private_jwk", "text")
      .addColumn("private_jwk", "jsonb")
      .addColumn("public_jwk", "jsonb", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addCheckConstraint("ledger_keys_one_private_form", sql`(sealed_private_jwk IS NULL) <> (private_jwk IS NULL)`)
      .execute();
  },
};
