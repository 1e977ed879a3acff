import { type Kysely, type Migration, type RawBuilder, sql } from "kysely";

/**
 * The closed sets of values of `offers` (`signing_mode`, `flow`, `status`) and `credentials`
 * (`status`) as enum types instead of `IN (…)` CHECK constraints. The database refuses any other
 * value as before (an enum accepts only its labels), for less: PostgreSQL rebuilds every CHECK of
 * a table from its stored text on each INSERT and UPDATE (parsed, simplified, compiled; an `IN`
 * list's array token by token), while an enum value is checked once, when the parameter is read,
 * by a cached catalog lookup. Issuance writes `offers` twice and `credentials` once per flow: those
 * three statements took 209 → 175 µs of backend CPU (PostgreSQL 18, the native embedded server).
 * The CHECKs that relate columns (`offers_signing_key`, `offers_grant`, `offers_issuer_key_check`,
 * `credentials_status_entry_pair`) stay; the offers' three are re-made with the same text.
 *
 * Existing rows convert as they are (the CHECKs held, so every value is a label); each table is
 * rewritten once (PostgreSQL changes a column's type by rewriting its table). Frozen: later
 * changes go in new migrations.
 */
const ENUMS = {
  offer_signing_mode: ["did", "x509"],
  offer_flow: ["pre-authorized", "authorization-code"],
  offer_status: ["offered", "redeemed"],
  credential_status: ["active", "suspended", "revoked"],
} as const;

/**
 * Per table: the columns that change type (→ their enum, the CHECK it replaces), and the CHECKs
 * that compare those columns with a constant, re-made with the same text (PostgreSQL stored their
 * constants as `text`, which an enum column does not compare with).
 */
const TABLES = {
  offers: {
    columns: {
      signing_mode: ["offer_signing_mode", "offers_signing_mode_check"],
      flow: ["offer_flow", "offers_flow_check"],
      status: ["offer_status", "offers_status_check"],
    },
    remade: {
      offers_signing_key: sql`(signing_mode = 'x509') = (issuer_did IS NULL AND issuer_kid IS NULL AND issuer_key_sealed IS NULL)`,
      offers_grant: sql`(flow = 'pre-authorized') = (pre_authorized_code_hash IS NOT NULL AND pre_authorized_code_sealed IS NOT NULL AND issuer_state IS NULL)`,
      offers_issuer_key_check: sql`(issuer_key_sealed IS NOT NULL)::int + (issuer_key_thumbprint IS NOT NULL)::int = (signing_mode = 'did')::int`,
    },
  },
  credentials: {
    columns: { status: ["credential_status", "credentials_status_check"] },
    remade: {},
  },
} as const;

/** The schema a kysely bound with `withSchema` qualifies `table` with (the enum types live beside the tables). */
function schemaOf(db: Kysely<unknown>, table: string): string {
  const compiled = (db as Kysely<Record<string, object>>).selectFrom(table).selectAll().compile().sql;
  const schema = /from "([^"]+)"\./.exec(compiled)?.[1];
  if (!schema) throw new Error(`migration 0012 needs a kysely bound to a schema (got: ${compiled})`);
  return schema;
}

export const replaceStatusChecksWithEnums: Migration = {
  async up(db: Kysely<unknown>) {
    const schema = schemaOf(db, "offers");
    for (const [name, labels] of Object.entries(ENUMS)) {
      const values = sql.join(labels.map((label) => sql.lit(label)));
      await sql`CREATE TYPE ${sql.id(schema, name)} AS ENUM (${values})`.execute(db);
    }
    for (const [table, { columns, remade }] of Object.entries(TABLES)) {
      const replaced = Object.entries(columns);
      const kept: Array<[string, RawBuilder<unknown>]> = Object.entries(remade);
      // One ALTER TABLE per table, one rewrite: the CHECKs go, the types change, the relating CHECKs come back.
      const actions = [
        ...replaced.map(([, [, check]]) => sql`DROP CONSTRAINT ${sql.id(check)}`),
        ...kept.map(([name]) => sql`DROP CONSTRAINT ${sql.id(name)}`),
        ...replaced.map(([column, [type]]) => {
          const enumType = sql.id(schema, type);
          return sql`ALTER COLUMN ${sql.id(column)} TYPE ${enumType} USING ${sql.id(column)}::${enumType}`;
        }),
        ...kept.map(([name, check]) => sql`ADD CONSTRAINT ${sql.id(name)} CHECK (${check})`),
      ];
      await sql`ALTER TABLE ${sql.id(schema, table)} ${sql.join(actions)}`.execute(db);
    }
  },
};
