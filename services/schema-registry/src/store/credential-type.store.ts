import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import {
  type CredentialFormat,
  type CredentialType,
  type CredentialTypeDefinition,
  formatOf,
} from "../domain/credential-type.js";
import type { UpsertOutcome } from "../domain/credential-type-query.js";
import type { CredentialTypeRepository } from "../domain/ports.js";
import { containsPattern } from "./contains-pattern.js";
import type { SchemaRegistryTables } from "./tables.js";

type Row = SchemaRegistryTables["credential_types"] & { created_at: Date; updated_at: Date; format: string };

/** JSON parameters are sent as text and cast: pg would send a JS array as a PostgreSQL array. */
const jsonb = (value: unknown) => sql<never>`${JSON.stringify(value)}::jsonb`;
const json = (value: unknown) => sql<never>`${JSON.stringify(value)}::json`;

/** Case-insensitive "contains" on a text column; `\` is the escape character of the pattern. */
const ilikeContains = (column: "type" | "name", text: string): Expression<SqlBool> =>
  sql<SqlBool>`${sql.ref(column)} ILIKE ${containsPattern(text)} ESCAPE '\\'`;

/** Byte-order comparison, so ties sort the same on every database collation. */
const byteOrder = (column: "type" | "version") => sql`${sql.ref(column)} COLLATE "C"`;

function toCredentialType(row: Row): CredentialType {
  return {
    type: row.type,
    version: row.version,
    name: row.name,
    description: row.description,
    status: row.status,
    useCase: row.use_case,
    display: row.display,
    claimDisplay: row.claim_display,
    schema: row.schema,
    ...(row.format === "mso_mdoc" && row.doctype ? { format: "mso_mdoc" as const, doctype: row.doctype } : {}),
    contentHash: row.content_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRowValues(definition: CredentialTypeDefinition, contentHash: string) {
  return {
    type: definition.type,
    version: definition.version,
    name: definition.name,
    description: definition.description,
    status: definition.status,
    use_case: jsonb(definition.useCase),
    display: json(definition.display),
    claim_display: json(definition.claimDisplay),
    schema: json(definition.schema),
    format: formatOf(definition),
    doctype: definition.doctype ?? null,
    content_hash: contentHash,
  };
}

/**
 * The credential type repository on PostgreSQL (`db` is already bound to the service's schema);
 * `created_at`/`updated_at` come from `now` (the service's clock), not the database's.
 */
export function createCredentialTypeStore(database: Kysely<unknown>, now: () => Date): CredentialTypeRepository {
  const db = database as Kysely<SchemaRegistryTables>;

  return {
    async upsert(definition, contentHash, options): Promise<UpsertOutcome> {
      const row = await db
        .insertInto("credential_types")
        .values({ ...toRowValues(definition, contentHash), created_at: now(), updated_at: now() })
        .onConflict((oc) =>
          oc
            .columns(["type", "version"])
            .doUpdateSet((eb) => ({
              name: eb.ref("excluded.name"),
              description: eb.ref("excluded.description"),
              status: eb.ref("excluded.status"),
              use_case: eb.ref("excluded.use_case"),
              display: eb.ref("excluded.display"),
              claim_display: eb.ref("excluded.claim_display"),
              schema: eb.ref("excluded.schema"),
              format: eb.ref("excluded.format"),
              doctype: eb.ref("excluded.doctype"),
              content_hash: eb.ref("excluded.content_hash"),
              updated_at: eb.ref("excluded.updated_at"),
            }))
            .where((eb) =>
              eb.and([
                eb("credential_types.content_hash", "<>", eb.ref("excluded.content_hash")),
                ...(options?.keepSchema
                  ? // json (not jsonb) keeps the text as written: property order is claim order.
                    [
                      eb(sql`credential_types.schema::text`, "=", sql`excluded.schema::text`),
                      eb("credential_types.format", "=", eb.ref("excluded.format")),
                      sql<SqlBool>`credential_types.doctype IS NOT DISTINCT FROM excluded.doctype`,
                    ]
                  : []),
              ]),
            ),
        )
        // xmax is 0 only for a freshly inserted row version.
        .returning(sql<boolean>`xmax = 0`.as("inserted"))
        .executeTakeFirst();
      if (!row) return "unchanged";
      return row.inserted ? "created" : "updated";
    },

    async find(type, version) {
      const row = await db
        .selectFrom("credential_types")
        .selectAll()
        .where("type", "=", type)
        .where("version", "=", version)
        .executeTakeFirst();
      return row ? toCredentialType(row as Row) : undefined;
    },

    async hasType(type) {
      const row = await db
        .selectFrom("credential_types")
        .select("type")
        .where("type", "=", type)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async list(query) {
      let filtered = db.selectFrom("credential_types");
      if (query.status) filtered = filtered.where("status", "=", query.status);
      if (query.format) filtered = filtered.where("format", "=", query.format);
      if (query.typeContains !== undefined) filtered = filtered.where(ilikeContains("type", query.typeContains));
      if (query.nameContains !== undefined) filtered = filtered.where(ilikeContains("name", query.nameContains));
      const [rows, count] = await Promise.all([
        filtered
          .select(["type", "version", "name", "status", "format", "created_at", "updated_at"])
          .orderBy(query.sortBy, "desc")
          .orderBy(byteOrder("type"))
          .orderBy(byteOrder("version"))
          .offset(query.offset)
          .limit(query.limit)
          .execute(),
        filtered.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
      ]);
      return {
        items: rows.map((row) => ({
          type: row.type,
          version: row.version,
          name: row.name,
          status: row.status,
          format: row.format as CredentialFormat,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
        total: Number(count.total),
      };
    },

    async listAll(filter) {
      let query = db.selectFrom("credential_types").selectAll();
      if (filter.status) query = query.where("status", "=", filter.status);
      const rows = await query.orderBy(byteOrder("type")).orderBy(byteOrder("version")).execute();
      return rows.map((row) => toCredentialType(row as Row));
    },
  };
}
