import {
  type ArgumentKinds,
  compileOnce,
  insertUsedValues,
  purgeUsedValuesSometimes,
  type UsedValueTables,
} from "@attesto/store";
import { type Kysely, sql } from "kysely";
import { C_NONCE_NAMESPACE } from "../domain/issue-credentials.js";
import type { IssuanceReservationRepository } from "../domain/repositories.js";
import { reserveAllowanceQuery } from "./issuance-allowance.store.js";
import { claimedEntriesOf, drawnIndexesOf, openListOf } from "./status-list.store.js";
import type { IssuerTables } from "./tables.js";

/** Draws beyond the entries needed: a first claim rarely comes up short while a list is under ~90 % full. */
const SURPLUS_DRAWS = 32;

/** What the reservation statement takes besides the nonces: every value passes through untouched. */
interface ReservationValues {
  now: Date;
  offerId: string;
  credentialConfigurationId: string;
  count: number;
  limit: number;
  tenant: string;
  signer: string;
  draws: number[];
  need: number;
}

const RESERVATION_VALUES: ArgumentKinds<ReservationValues> = {
  now: "Date",
  offerId: "string",
  credentialConfigurationId: "string",
  count: "number",
  limit: "number",
  tenant: "string",
  signer: "string",
  draws: "number[]",
  need: "number",
};

/**
 * One statement (data-modifying `WITH`), one round trip, no explicit transaction: `nonces` spends
 * the c_nonces (the replay guard's upsert), `allowance` raises the allowance only if every nonce
 * was fresh, `claimed` takes status list entries (status-list.store.ts) only if the allowance was
 * reserved. Each part is the same single statement it is alone, so each keeps its guarantee under
 * concurrency; a failure of the statement changes nothing.
 */
const reservationQuery = (
  db: Kysely<IssuerTables & UsedValueTables>,
  nonces: ReadonlyArray<{ value: string; expiresAt: Date }>,
  values: ReservationValues,
) =>
  db
    .with("nonces", (qc) => insertUsedValues(qc, C_NONCE_NAMESPACE, nonces, values.now))
    .with("allowance", (qc) =>
      reserveAllowanceQuery(
        qc,
        {
          key: { offerId: values.offerId, credentialConfigurationId: values.credentialConfigurationId },
          count: values.count,
          limit: values.limit,
          now: values.now,
        },
        sql<boolean>`(SELECT count(*) FROM nonces) = ${nonces.length}`,
      ),
    )
    .with("list", (qc) => openListOf(qc, values.tenant, values.signer))
    .with("drawn", (qc) => drawnIndexesOf(qc, values.draws, sql<boolean>`EXISTS (SELECT 1 FROM allowance)`))
    .with("claimed", (qc) => claimedEntriesOf(qc, values.need))
    .selectNoFrom([
      sql<number>`(SELECT count(*) FROM nonces)::integer`.as("fresh_nonces"),
      sql<number>`(SELECT count(*) FROM allowance)::integer`.as("reserved"),
      sql<Array<{ list_id: string; idx: number }>>`(SELECT coalesce(json_agg(claimed), '[]') FROM claimed)`.as(
        "entries",
      ),
    ]);

/** The reservation statement; the usual request (one proof, so one c_nonce) runs it compiled once. */
export function createIssuanceReservationStore(database: Kysely<unknown>): IssuanceReservationRepository {
  const db = database as Kysely<IssuerTables & UsedValueTables>;
  const reserveWithOneNonce = compileOnce(
    db,
    { ...RESERVATION_VALUES, nonce: "string", nonceExpiresAt: "Date" },
    (db, values: ReservationValues & { nonce: string; nonceExpiresAt: Date }) =>
      reservationQuery(db, [{ value: values.nonce, expiresAt: values.nonceExpiresAt }], values),
  );
  return {
    async reserve({ nonces, allowance, statusEntries, now }, draws) {
      if (allowance.count > allowance.limit) {
        // Nothing can be reserved; the nonces are still spent, as when the allowance is refused.
        const spent = await insertUsedValues(db, C_NONCE_NAMESPACE, nonces, now).execute();
        return spent.length === nonces.length ? { outcome: "allowance_exceeded" } : { outcome: "nonce_used" };
      }
      const need = statusEntries.count;
      const values: ReservationValues = {
        now,
        offerId: allowance.key.offerId,
        credentialConfigurationId: allowance.key.credentialConfigurationId,
        count: allowance.count,
        limit: allowance.limit,
        tenant: statusEntries.tenant,
        signer: statusEntries.signer.key,
        draws: draws.draws(need + SURPLUS_DRAWS),
        need,
      };
      const [nonce, ...more] = nonces;
      const row =
        nonce && more.length === 0
          ? await reserveWithOneNonce.takeFirst({ ...values, nonce: nonce.value, nonceExpiresAt: nonce.expiresAt })
          : await reservationQuery(db, nonces, values).executeTakeFirst();
      if (!row) throw new Error("the reservation statement returned no row");
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
