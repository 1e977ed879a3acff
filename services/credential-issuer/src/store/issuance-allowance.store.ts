import { type Kysely, type QueryCreator, sql } from "kysely";
import type { IssuanceAllowanceKey, IssuanceAllowanceRepository } from "../domain/ports.js";
import type { IssuerTables } from "./tables.js";

/**
 * The conditional upsert that reserves `count` credentials of the key: a row (`issued`) is returned
 * only when the total stays within `limit`. `gate`: a condition the reservation is made under
 * (another part of the same statement); without one it is always tried.
 */
export function reserveAllowanceQuery<DB extends IssuerTables>(
  creator: QueryCreator<DB>,
  input: { key: IssuanceAllowanceKey; count: number; limit: number; now: Date },
  gate?: ReturnType<typeof sql<boolean>>,
) {
  const qc = creator as unknown as QueryCreator<IssuerTables>;
  const { key, count, limit, now } = input;
  return qc
    .insertInto("issuance_allowances")
    .columns(["offer_id", "credential_configuration_id", "issued", "updated_at"])
    .expression(
      qc
        .selectNoFrom([
          sql<string>`${key.offerId}::text`.as("offer_id"),
          sql<string>`${key.credentialConfigurationId}::text`.as("credential_configuration_id"),
          sql<number>`${count}::integer`.as("issued"),
          sql<Date>`${now}::timestamptz`.as("updated_at"),
        ])
        .where(gate ?? sql<boolean>`true`),
    )
    .onConflict((conflict) =>
      conflict
        .columns(["offer_id", "credential_configuration_id"])
        .doUpdateSet({ issued: sql`issuance_allowances.issued + ${count}`, updated_at: now })
        .where(sql<boolean>`issuance_allowances.issued + ${count} <= ${limit}`),
    )
    .returning("issued");
}

/**
 * Issuance allowances on PostgreSQL: one row per (offer, configuration), raised by a single
 * conditional upsert, so the bound holds across replicas and concurrent requests.
 */
export function createIssuanceAllowanceStore(database: Kysely<unknown>): IssuanceAllowanceRepository {
  const db = database as Kysely<IssuerTables>;
  return {
    async reserve(key, count, limit, now) {
      if (count > limit) return false;
      const row = await reserveAllowanceQuery(db, { key, count, limit, now }).executeTakeFirst();
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
