import { insertUsedValues, purgeUsedValuesSometimes, type UsedValueTables } from "@attesto/store";
import { type Kysely, sql } from "kysely";
import { C_NONCE_NAMESPACE } from "../domain/issue-credentials.js";
import type { IssuanceReservationRepository } from "../domain/repositories.js";
import { reserveAllowanceQuery } from "./issuance-allowance.store.js";
import { claimedEntriesOf, drawnIndexesOf, openListOf } from "./status-list.store.js";
import type { IssuerTables } from "./tables.js";

/** Draws beyond the entries needed: a first claim rarely comes up short while a list is under ~90 % full. */
const SURPLUS_DRAWS = 32;

/**
 * One statement (data-modifying `WITH`), one round trip, no explicit transaction: `nonces` spends
 * the c_nonces (the replay guard's upsert), `allowance` raises the allowance only if every nonce
 * was fresh, `claimed` takes status list entries (status-list.store.ts) only if the allowance was
 * reserved. Each part is the same single statement it is alone, so each keeps its guarantee under
 * concurrency; a failure of the statement changes nothing.
 */
export function createIssuanceReservationStore(database: Kysely<unknown>): IssuanceReservationRepository {
  const db = database as Kysely<IssuerTables & UsedValueTables>;
  return {
    async reserve({ nonces, allowance, statusEntries, now }, draws) {
      if (allowance.count > allowance.limit) {
        // Nothing can be reserved; the nonces are still spent, as when the allowance is refused.
        const spent = await insertUsedValues(db, C_NONCE_NAMESPACE, nonces, now).execute();
        return spent.length === nonces.length ? { outcome: "allowance_exceeded" } : { outcome: "nonce_used" };
      }
      const need = statusEntries.count;
      const row = await db
        .with("nonces", (qc) => insertUsedValues(qc, C_NONCE_NAMESPACE, nonces, now))
        .with("allowance", (qc) =>
          reserveAllowanceQuery(
            qc,
            { ...allowance, now },
            sql<boolean>`(SELECT count(*) FROM nonces) = ${nonces.length}`,
          ),
        )
        .with("list", (qc) => openListOf(qc, statusEntries.tenant, statusEntries.signer.key))
        .with("drawn", (qc) =>
          drawnIndexesOf(qc, draws.draws(need + SURPLUS_DRAWS), sql<boolean>`EXISTS (SELECT 1 FROM allowance)`),
        )
        .with("claimed", (qc) => claimedEntriesOf(qc, need))
        .selectNoFrom([
          sql<number>`(SELECT count(*) FROM nonces)::integer`.as("fresh_nonces"),
          sql<number>`(SELECT count(*) FROM allowance)::integer`.as("reserved"),
          sql<Array<{ list_id: string; idx: number }>>`(SELECT coalesce(json_agg(claimed), '[]') FROM claimed)`.as(
            "entries",
          ),
        ])
        .executeTakeFirstOrThrow();
      await purgeUsedValuesSometimes(database, now);
      if (row.fresh_nonces !== nonces.length) return { outcome: "nonce_used" };
      if (row.reserved === 0) return { outcome: "allowance_exceeded" };
      return {
        outcome: "reserved",
        statusEntries: row.entries.map((entry) => ({ listId: entry.list_id, idx: entry.idx })),
      };
    },
  };
}
