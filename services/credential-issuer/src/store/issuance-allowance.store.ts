import { type Kysely, sql } from "kysely";
import type { IssuanceAllowanceRepository } from "../domain/repositories.js";
import type { IssuerTables } from "./tables.js";

/**
 * Issuance allowances on PostgreSQL: one row per (offer, configuration), raised by a single
 * conditional upsert, so the bound holds across replicas and concurrent requests.
 */
export function createIssuanceAllowanceStore(database: Kysely<unknown>): IssuanceAllowanceRepository {
  const db = database as Kysely<IssuerTables>;
  return {
    async reserve(key, count, limit, now) {
      if (count > limit) return false;
      const row = await db
        .insertInto("issuance_allowances")
        .values({
          offer_id: key.offerId,
          credential_configuration_id: key.credentialConfigurationId,
          issued: count,
          updated_at: now,
        })
        .onConflict((conflict) =>
          conflict
            .columns(["offer_id", "credential_configuration_id"])
            .doUpdateSet({ issued: sql`issuance_allowances.issued + ${count}`, updated_at: now })
            .where(sql<boolean>`issuance_allowances.issued + ${count} <= ${limit}`),
        )
        .returning("issued")
        .executeTakeFirst();
      return row !== undefined;
    },

    async release(key, count, now) {
      await db
        .updateTable("issuance_allowances")
        .set({ issued: sql`greatest(issued - ${count}, 0)`, updated_at: now })
        .where("offer_id", "=", key.offerId)
        .where("credential_configuration_id", "=", key.credentialConfigurationId)
        .execute();
    },
  };
}
