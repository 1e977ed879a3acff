import type { Kysely, Migration } from "kysely";

/** VerifierPolicy.acceptUnknownStatus (default false: a credential whose status cannot be stated fails). Frozen. */
export const addAcceptUnknownStatus: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("verifier_policies")
      .addColumn("accept_unknown_status", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
