import type { Kysely } from "kysely";
import type { LoginAttemptRepository } from "../domain/ports.js";
import type { HolderTables } from "./tables.js";

/**
 * Login throttling state on PostgreSQL. A claim creates the pair's row when absent and locks it for
 * its transaction, so concurrent attempts of one pair, on any replica, are decided one at a time.
 */
export function createLoginAttemptStore(database: Kysely<unknown>): LoginAttemptRepository {
  const db = database as Kysely<HolderTables>;
  return {
    async claim(key, decide) {
      return db.transaction().execute(async (trx) => {
        // Make sure the row exists, then lock it: concurrent first attempts wait here too.
        const epoch = new Date(0);
        await trx
          .insertInto("login_attempts")
          .values({
            account_uuid: key.accountUuid,
            client: key.client,
            failures: 0,
            last_attempt_at: epoch,
            blocked_until: epoch,
          })
          .onConflict((conflict) => conflict.columns(["account_uuid", "client"]).doNothing())
          .execute();
        const row = await trx
          .selectFrom("login_attempts")
          .select(["failures", "last_attempt_at", "blocked_until"])
          .where("account_uuid", "=", key.accountUuid)
          .where("client", "=", key.client)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const decision = decide(
          row.failures === 0
            ? undefined
            : { failures: row.failures, lastAttemptAt: row.last_attempt_at, blockedUntil: row.blocked_until },
        );
        if (!decision.allowed) return decision;
        await trx
          .updateTable("login_attempts")
          .set({
            failures: decision.next.failures,
            last_attempt_at: decision.next.lastAttemptAt,
            blocked_until: decision.next.blockedUntil,
          })
          .where("account_uuid", "=", key.accountUuid)
          .where("client", "=", key.client)
          .execute();
        return decision;
      });
    },

    async clear(key) {
      await db
        .deleteFrom("login_attempts")
        .where("account_uuid", "=", key.accountUuid)
        .where("client", "=", key.client)
        .execute();
    },

    async purge(before) {
      await db
        .deleteFrom("login_attempts")
        .where("last_attempt_at", "<", before)
        .where("blocked_until", "<", before)
        .execute();
    },
  };
}
