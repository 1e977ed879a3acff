import { type Kysely, type Migration, sql } from "kysely";

/** The credential format of a type (`dc+sd-jwt` for every existing row) and an mdoc type's doctype. */
export const addCredentialFormats: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("credential_types")
      .addColumn("format", "text", (c) =>
        c.notNull().defaultTo("dc+sd-jwt").check(sql`format IN ('dc+sd-jwt', 'mso_mdoc')`),
      )
      .addColumn("doctype", "text")
      .execute();
    await db.schema
      .alterTable("credential_types")
      .addCheckConstraint("credential_types_doctype", sql`(format = 'mso_mdoc') = (doctype IS NOT NULL)`)
      .execute();
  },
};
