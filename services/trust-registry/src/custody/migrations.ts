import { type Kysely, type Migration, sql } from "kysely";

/**
 * Tables of key custody, in the trust registry's schema. Frozen once released: later changes go in
 * new migrations. The service adds these to its migration list.
 */
export const custodyMigrations: Record<string, Migration> = {
  /** Private keys, each in an AES-256-GCM envelope (see envelope.ts); never stored in the clear. */
  "0100_custody_keys": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("custody_keys")
        .addColumn("key_id", "text", (c) => c.primaryKey())
        .addColumn("tenant", "text", (c) => c.notNull())
        .addColumn("alg", "text", (c) => c.notNull().check(sql`alg IN ('EdDSA', 'ES256')`))
        .addColumn("public_jwk", "jsonb", (c) => c.notNull())
        .addColumn("kek_id", "text", (c) => c.notNull())
        .addColumn("wrapped_dek", "bytea", (c) => c.notNull())
        .addColumn("iv", "bytea", (c) => c.notNull())
        .addColumn("tag", "bytea", (c) => c.notNull())
        .addColumn("ciphertext", "bytea", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema.createIndex("custody_keys_tenant").on("custody_keys").column("tenant").execute();
      // Rewrapping looks for rows not under the current KEK.
      await db.schema.createIndex("custody_keys_kek_id").on("custody_keys").column("kek_id").execute();
    },
  },
  /** Each tenant's current X.509 signing certificate; replaced when it nears expiry. */
  "0101_custody_certificates": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("custody_certificates")
        .addColumn("tenant", "text", (c) => c.primaryKey())
        .addColumn("key_id", "text", (c) => c.notNull().references("custody_keys.key_id"))
        .addColumn("x5c", "jsonb", (c) => c.notNull())
        .addColumn("not_after", "timestamptz", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
  /**
   * The generated platform CA (embedded mode): rows `root` and `issuing`, written together once.
   * Their keys are custody keys of the reserved platform tenant.
   */
  "0102_custody_ca": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("custody_ca")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("cert_pem", "text", (c) => c.notNull())
        .addColumn("key_id", "text", (c) => c.notNull().references("custody_keys.key_id"))
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
  /** Tenants' own signing certificates (ImportSigningCertificate), preferred over custody_certificates. */
  "0103_custody_imported_certificates": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("custody_imported_certificates")
        .addColumn("tenant", "text", (c) => c.primaryKey())
        .addColumn("key_id", "text", (c) => c.notNull().references("custody_keys.key_id"))
        .addColumn("chain", "jsonb", (c) => c.notNull())
        .addColumn("x5c", "jsonb", (c) => c.notNull())
        .addColumn("trust_anchor", "text", (c) => c.notNull())
        .addColumn("fingerprint", "text", (c) => c.notNull())
        .addColumn("not_after", "timestamptz", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
  /**
   * One envelope format for every secret at rest: new keys go into `sealed_private_key` (the runtime
   * envelope, `v1.<kek>.<wrapped>.<ciphertext>`); rows written before keep their columns (format 0)
   * until RewrapKeys reseals them. `kek_id` stays, naming the KEK of either form (rewrap's index).
   */
  "0104_custody_keys_sealed": {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("custody_keys").addColumn("sealed_private_key", "text").execute();
      for (const column of ["wrapped_dek", "iv", "tag", "ciphertext"]) {
        await db.schema
          .alterTable("custody_keys")
          .alterColumn(column, (c) => c.dropNotNull())
          .execute();
      }
      await db.schema
        .alterTable("custody_keys")
        .addCheckConstraint(
          "custody_keys_sealed",
          sql`sealed_private_key IS NOT NULL OR
            (wrapped_dek IS NOT NULL AND iv IS NOT NULL AND tag IS NOT NULL AND ciphertext IS NOT NULL)`,
        )
        .execute();
    },
  },
  /**
   * Verifier identities: a tenant's platform-issued verifier certificate (dNSName = the verifier's
   * public host) and its own imported verifier chain, the same columns as the issuer's tables.
   */
  "0105_custody_verifier_certificates": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("custody_verifier_certificates")
        .addColumn("tenant", "text", (c) => c.primaryKey())
        .addColumn("key_id", "text", (c) => c.notNull().references("custody_keys.key_id"))
        .addColumn("x5c", "jsonb", (c) => c.notNull())
        .addColumn("not_after", "timestamptz", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createTable("custody_imported_verifier_certificates")
        .addColumn("tenant", "text", (c) => c.primaryKey())
        .addColumn("key_id", "text", (c) => c.notNull().references("custody_keys.key_id"))
        .addColumn("chain", "jsonb", (c) => c.notNull())
        .addColumn("x5c", "jsonb", (c) => c.notNull())
        .addColumn("trust_anchor", "text", (c) => c.notNull())
        .addColumn("fingerprint", "text", (c) => c.notNull())
        .addColumn("not_after", "timestamptz", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
};
