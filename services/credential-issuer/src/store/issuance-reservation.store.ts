import {
  type ArgumentKinds,
  compileOnce,
  insertUsedValues,
  purgeUsedValuesSometimes,
  type UsedValueTables,
} from "@attesto/store";
import { type Kysely, type QueryCreator, sql } from "kysely";
import { C_NONCE_NAMESPACE } from "../domain/issue-credentials.js";
import type { IssuanceReservationRepository } from "../domain/ports.js";
import { CREDENTIAL_VALUES, type CredentialValues, credentialValues } from "./credential.store.js";
import { reserveAllowanceQuery } from "./issuance-allowance.store.js";
import type { IssuerTables } from "./tables.js";

/** What the reservation statement takes besides the nonces and records: every value passes through untouched. */
interface ReservationValues {
  now: Date;
  offerId: string;
  credentialConfigurationId: string;
  count: number;
  limit: number;
}

const RESERVATION_VALUES: ArgumentKinds<ReservationValues> = {
  now: "Date",
  offerId: "string",
  credentialConfigurationId: "string",
  count: "number",
  limit: "number",
};

const CREDENTIAL_COLUMNS = Object.keys(CREDENTIAL_VALUES) as Array<keyof CredentialValues>;

/**
 * `recorded_<n>`: one credential's record, inserted only if the allowance was reserved. INSERT …
 * SELECT of the bare parameters, so each takes its column's type.
 */
const recordQuery = (qc: QueryCreator<IssuerTables>, values: CredentialValues) =>
  qc
    .insertInto("credentials")
    .columns(CREDENTIAL_COLUMNS)
    .expression(
      qc
        .selectNoFrom(CREDENTIAL_COLUMNS.map((column) => sql`${values[column]}`.as(column)))
        .where(sql<boolean>`EXISTS (SELECT 1 FROM allowance)`),
    );

/**
 * One statement (data-modifying `WITH`), one round trip, no explicit transaction, each part only
 * if the one before held:
 * - `nonces`: c_nonce single use (the replay guard's upsert: of concurrent uses of one nonce, one
 *   inserts it);
 * - `allowance`: the token's issuance allowance (batch_size), raised only if every nonce was fresh
 *   (a conditional upsert: the bound holds under concurrency);
 * - `recorded_<n>`: the credentials' records, stored before the response, only if the allowance
 *   was reserved; their status list entries were claimed before (status-entry-pool.ts), so the
 *   unique index of `credentials` never refuses one.
 * Each part is the same single statement it is alone, so each keeps its guarantee on any replica;
 * a failure of the statement changes nothing (no nonce spent, no allowance taken).
 */
const reservationQuery = (
  db: Kysely<IssuerTables & UsedValueTables>,
  nonces: ReadonlyArray<{ value: string; expiresAt: Date }>,
  values: ReservationValues,
  records: ReadonlyArray<CredentialValues>,
) => {
  let query = db
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
    );
  for (const [index, record] of records.entries()) {
    query = query.with(`recorded_${index}`, (qc) =>
      recordQuery(qc as unknown as QueryCreator<IssuerTables>, record),
    ) as unknown as typeof query;
  }
  return query.selectNoFrom([
    sql<number>`(SELECT count(*) FROM nonces)::integer`.as("fresh_nonces"),
    sql<number>`(SELECT count(*) FROM allowance)::integer`.as("reserved"),
  ]);
};

/** The reservation statement; the usual request (one proof, one credential) runs it compiled once. */
export function createIssuanceReservationStore(database: Kysely<unknown>): IssuanceReservationRepository {
  const db = database as Kysely<IssuerTables & UsedValueTables>;
  const reserveOne = compileOnce(
    db,
    { ...RESERVATION_VALUES, ...CREDENTIAL_VALUES, nonce: "string", nonceExpiresAt: "Date" },
    (db, values: ReservationValues & CredentialValues & { nonce: string; nonceExpiresAt: Date }) =>
      reservationQuery(db, [{ value: values.nonce, expiresAt: values.nonceExpiresAt }], values, [values]),
  );
  return {
    async reserve({ nonces, allowance, records = [], now }) {
      if (allowance.count > allowance.limit) {
        // Nothing can be reserved; the nonces are still spent, as when the allowance is refused.
        const spent = await insertUsedValues(db, C_NONCE_NAMESPACE, nonces, now).execute();
        return spent.length === nonces.length ? { outcome: "allowance_exceeded" } : { outcome: "nonce_used" };
      }
      const values: ReservationValues = {
        now,
        offerId: allowance.key.offerId,
        credentialConfigurationId: allowance.key.credentialConfigurationId,
        count: allowance.count,
        limit: allowance.limit,
      };
      const [nonce, ...more] = nonces;
      const [record, ...others] = records;
      const row =
        nonce && more.length === 0 && record && others.length === 0
          ? await reserveOne.takeFirst({
              ...values,
              ...credentialValues(record),
              nonce: nonce.value,
              nonceExpiresAt: nonce.expiresAt,
            })
          : await reservationQuery(db, nonces, values, records.map(credentialValues)).executeTakeFirst();
      if (!row) throw new Error("the reservation statement returned no row");
      await purgeUsedValuesSometimes(database, now);
      if (row.fresh_nonces !== nonces.length) return { outcome: "nonce_used" };
      if (row.reserved === 0) return { outcome: "allowance_exceeded" };
      return { outcome: "reserved" };
    },
  };
}
