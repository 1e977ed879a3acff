import type { Kysely, Selectable } from "kysely";
import type { CredentialRecord, CredentialRepository } from "../domain/repositories.js";
import type { CredentialsTable, IssuerTables } from "./tables.js";

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
    ...(row.ledger_chain === null || row.ledger_object_id === null || row.notarization_salt === null
      ? {}
      : { notarization: { chain: row.ledger_chain, objectId: row.ledger_object_id, salt: row.notarization_salt } }),
    ...(row.status_list_id === null || row.status_idx === null
      ? {}
      : { statusEntry: { listId: row.status_list_id, idx: row.status_idx } }),
  };
}

/** Issued credentials on PostgreSQL: the revocation state of every credential (this service's README). */
export function createCredentialStore(database: Kysely<unknown>): CredentialRepository {
  const db = database as Kysely<IssuerTables>;
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      await db
        .insertInto("credentials")
        .values(
          records.map((record) => ({
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
          })),
        )
        .execute();
    },
    async findByIssuerJwtSha256(digest) {
      const row = await db
        .selectFrom("credentials")
        .selectAll()
        .where("issuer_jwt_sha256", "=", digest)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
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
