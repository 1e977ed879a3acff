import type { Kysely } from "kysely";
import type { UnansweredRedemptions } from "../domain/ports.js";
import type { AuthServerTables } from "./tables.js";

/** The most unanswered redemptions of one code returned (a request tries each with the issuer). */
const MAX_FOUND = 4;

/**
 * Unanswered pre-authorized code redemptions on PostgreSQL, by the code's SHA-256. Written only when
 * a redemption call failed without an answer, read only when the issuer refused one: a token
 * request that succeeds at once never touches this table.
 */
export function createUnansweredRedemptionStore(database: Kysely<unknown>): UnansweredRedemptions {
  const db = database as Kysely<AuthServerTables>;
  return {
    async record(codeHash, redemptionId, expiresAt, now) {
      await db
        .insertInto("unanswered_redemptions")
        .values({ code_hash: codeHash, redemption_id: redemptionId, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(["code_hash", "redemption_id"]).doNothing())
        .execute();
      // Rare (a lost answer), so the expired records go here rather than on a timer.
      await db.deleteFrom("unanswered_redemptions").where("expires_at", "<=", now).execute();
    },

    async find(codeHash, now) {
      const rows = await db
        .selectFrom("unanswered_redemptions")
        .select("redemption_id")
        .where("code_hash", "=", codeHash)
        .where("expires_at", ">", now)
        .orderBy("expires_at")
        .limit(MAX_FOUND)
        .execute();
      return rows.map((row) => row.redemption_id);
    },

    async take(codeHash, redemptionId, now) {
      const taken = await db
        .deleteFrom("unanswered_redemptions")
        .where("code_hash", "=", codeHash)
        .where("redemption_id", "=", redemptionId)
        .where("expires_at", ">", now)
        .returning("redemption_id")
        .executeTakeFirst();
      return taken !== undefined;
    },
  };
}
