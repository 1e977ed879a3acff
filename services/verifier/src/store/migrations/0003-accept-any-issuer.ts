import type { Kysely, Migration } from "kysely";

/** VerifierPolicy.acceptAnyIssuer (default false: issuers are trusted only when known). Frozen. */
export const addAcceptAnyIssuer: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("verifier_policies")
      .addColumn("accept_any_issuer", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
