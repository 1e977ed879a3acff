import { randomUUID } from "node:crypto";
import { STATUS_LIST_BITS, STATUS_TYPE } from "@attesto/protocol";
import { type ArgumentKinds, compileOnce } from "@attesto/store";
import { type Kysely, type Selectable, sql } from "kysely";
import type {
  CredentialRecord,
  CredentialStatus,
  CredentialStatusChange,
  NotificationEvent,
} from "../domain/credential-record.js";
import type { CredentialRepository } from "../domain/ports.js";
import type { CredentialStatusChangesTable, CredentialsTable, IssuerTables } from "./tables.js";

/** The Token Status List value of each status. */
const STATUS_VALUE: Record<CredentialStatus, number> = {
  active: STATUS_TYPE.valid,
  revoked: STATUS_TYPE.invalid,
  suspended: STATUS_TYPE.suspended,
};

const toChange = (row: Selectable<CredentialStatusChangesTable>): CredentialStatusChange => ({
  id: row.id,
  credentialId: row.credential_id,
  tenant: row.tenant,
  from: row.from_status,
  to: row.to_status,
  actor: row.actor,
  changedAt: row.changed_at,
});

function toRecord(row: Selectable<CredentialsTable>): CredentialRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    offerId: row.offer_id,
    credentialConfigurationId: row.credential_configuration_id,
    vct: row.vct,
    issuerJwtSha256: row.issuer_jwt_sha256,
    holderKeyThumbprint: row.holder_key_thumbprint,
    ...(row.holder_did === null ? {} : { holderDid: row.holder_did }),
    status: row.status,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
    ...(row.status_changed_at === null ? {} : { statusChangedAt: row.status_changed_at }),
    ...(row.ledger_chain === null || row.ledger_object_id === null || row.notarization_salt === null
      ? {}
      : { notarization: { chain: row.ledger_chain, objectId: row.ledger_object_id, salt: row.notarization_salt } }),
    ...(row.status_list_id === null || row.status_idx === null
      ? {}
      : { statusEntry: { listId: row.status_list_id, idx: row.status_idx } }),
    ...(row.notification_id === null ? {} : { notificationId: row.notification_id }),
    ...(row.notification_event === null || row.notified_at === null
      ? {}
      : {
          notification: {
            event: row.notification_event as NotificationEvent,
            ...(row.notification_event_description === null ? {} : { description: row.notification_event_description }),
            at: row.notified_at,
          },
        }),
  };
}

/** A new credential's row, as statement arguments. */
export type CredentialValues = Pick<
  CredentialsTable,
  | "id"
  | "tenant"
  | "offer_id"
  | "credential_configuration_id"
  | "vct"
  | "issuer_jwt_sha256"
  | "holder_key_thumbprint"
  | "holder_did"
  | "status"
  | "issued_at"
  | "expires_at"
  | "revoked_at"
  | "ledger_chain"
  | "ledger_object_id"
  | "notarization_salt"
  | "status_list_id"
  | "status_idx"
  | "notification_id"
>;
export const CREDENTIAL_VALUES: ArgumentKinds<CredentialValues> = {
  id: "string",
  tenant: "string",
  offer_id: "string",
  credential_configuration_id: "string",
  vct: "string",
  issuer_jwt_sha256: "string",
  holder_key_thumbprint: "string",
  holder_did: "string | null",
  status: "string",
  issued_at: "Date",
  expires_at: "Date",
  revoked_at: "Date | null",
  ledger_chain: "string | null",
  ledger_object_id: "string | null",
  notarization_salt: "string | null",
  status_list_id: "string | null",
  status_idx: "number | null",
  notification_id: "string | null",
};

export const credentialValues = (record: CredentialRecord): CredentialValues => ({
  id: record.id,
  tenant: record.tenant,
  offer_id: record.offerId,
  credential_configuration_id: record.credentialConfigurationId,
  vct: record.vct,
  issuer_jwt_sha256: record.issuerJwtSha256,
  holder_key_thumbprint: record.holderKeyThumbprint,
  holder_did: record.holderDid ?? null,
  status: record.status,
  issued_at: record.issuedAt,
  expires_at: record.expiresAt,
  revoked_at: record.revokedAt ?? null,
  ledger_chain: record.notarization?.chain ?? null,
  ledger_object_id: record.notarization?.objectId ?? null,
  notarization_salt: record.notarization?.salt ?? null,
  status_list_id: record.statusEntry?.listId ?? null,
  status_idx: record.statusEntry?.idx ?? null,
  notification_id: record.notificationId ?? null,
});

/** Issued credentials on PostgreSQL: the revocation state of every credential (this service's README). */
export function createCredentialStore(database: Kysely<unknown>): CredentialRepository {
  const db = database as Kysely<IssuerTables>;
  // One credential per request is the usual case: its insert is compiled once.
  const insertOne = compileOnce(db, CREDENTIAL_VALUES, (db, values: CredentialValues) =>
    db.insertInto("credentials").values([values]),
  );
  return {
    async insertMany(records) {
      const [record, ...more] = records;
      if (!record) return;
      if (more.length === 0) await insertOne.execute(credentialValues(record));
      else await db.insertInto("credentials").values(records.map(credentialValues)).execute();
    },
    async findByIssuerJwtSha256(digest) {
      const row = await db
        .selectFrom("credentials")
        .selectAll()
        .where("issuer_jwt_sha256", "=", digest)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async find(tenant, id) {
      const row = await db
        .selectFrom("credentials")
        .selectAll()
        .where("tenant", "=", tenant)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async list({ tenant, offerId, status, offset, limit }) {
      let query = db.selectFrom("credentials").where("tenant", "=", tenant);
      if (offerId !== undefined) query = query.where("offer_id", "=", offerId);
      if (status !== undefined) query = query.where("status", "=", status);
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy("issued_at", "desc").orderBy("id", "desc").offset(offset).limit(limit).execute(),
        query.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
      ]);
      return { records: rows.map(toRecord), total: Number(count.total) };
    },

    async changeStatus({ tenant, id, to, actor, at }) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("credentials")
          .selectAll()
          .where("id", "=", id)
          .where("tenant", "=", tenant)
          .forUpdate()
          .executeTakeFirst();
        if (!row) return { outcome: "not_found" as const };
        if (row.status === to) {
          const latest = await trx
            .selectFrom("credential_status_changes")
            .selectAll()
            .where("credential_id", "=", id)
            .where("tenant", "=", tenant)
            .orderBy("changed_at", "desc")
            .limit(1)
            .executeTakeFirst();
          return {
            outcome: "unchanged" as const,
            record: toRecord(row),
            ...(latest ? { change: toChange(latest) } : {}),
          };
        }
        if (row.status === "revoked") return { outcome: "final" as const, record: toRecord(row) };
        const updated = await trx
          .updateTable("credentials")
          .set({ status: to, status_changed_at: at, ...(to === "revoked" ? { revoked_at: at } : {}) })
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow();
        if (row.status_list_id !== null && row.status_idx !== null) {
          // One byte of the list, rewritten in one statement under the row lock: readers see before or after.
          const bitOffset = row.status_idx * STATUS_LIST_BITS;
          const byte = bitOffset >> 3;
          const shift = bitOffset & 7;
          const keep = 0xff & ~(((1 << STATUS_LIST_BITS) - 1) << shift);
          const value = STATUS_VALUE[to] << shift;
          await trx
            .updateTable("status_lists")
            .set({
              statuses: sql`set_byte(statuses, ${byte}, (get_byte(statuses, ${byte}) & ${keep}) | ${value})`,
              version: sql`version + 1`,
              updated_at: at,
            })
            .where("id", "=", row.status_list_id)
            .where("tenant", "=", tenant)
            .where("bits", "=", STATUS_LIST_BITS)
            .execute();
        }
        const change = await trx
          .insertInto("credential_status_changes")
          .values({
            id: randomUUID(),
            credential_id: id,
            tenant,
            from_status: row.status,
            to_status: to,
            actor,
            changed_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { outcome: "changed" as const, record: toRecord(updated), change: toChange(change) };
      });
    },

    async statusHistory(tenant, id) {
      const rows = await db
        .selectFrom("credential_status_changes")
        .selectAll()
        .where("credential_id", "=", id)
        .where("tenant", "=", tenant)
        .orderBy("changed_at")
        .execute();
      return rows.map(toChange);
    },

    async recordNotification({ tenant, offerId, notificationId, event, description, at }) {
      const rows = await db
        .updateTable("credentials")
        .set({ notification_event: event, notification_event_description: description ?? null, notified_at: at })
        .where("tenant", "=", tenant)
        .where("offer_id", "=", offerId)
        .where("notification_id", "=", notificationId)
        .returningAll()
        .execute();
      return rows.map(toRecord);
    },

    async revoke(id, at) {
      const result = await db
        .updateTable("credentials")
        .set({ status: "revoked", revoked_at: at })
        .where("id", "=", id)
        .where("status", "=", "active")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
