import type { AnchorProof } from "@attesto/protocol";
import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import type { Kysely, Selectable } from "kysely";
import type { CredentialSummary, IssuerNotificationHandle, StoredCredential } from "../domain/model.js";
import type { CredentialRepository } from "../domain/ports.js";
import type { CredentialsTable, HolderTables } from "./tables.js";

/** AAD of a credential's sealed contents: an envelope cannot be moved to another row. */
export const credentialContext = (id: string) => `credential:${id}`;

interface SealedContent {
  raw: string;
  claims: Record<string, unknown>;
  notification?: IssuerNotificationHandle;
}

function toSummary(row: Selectable<CredentialsTable>): CredentialSummary {
  return {
    id: row.id,
    userUuid: row.user_uuid,
    format: row.format,
    vct: row.vct,
    issuerDid: row.issuer_did,
    credentialIssuer: row.credential_issuer,
    credentialConfigurationId: row.credential_configuration_id,
    issuerCredentialId: row.issuer_credential_id,
    issuerOfferId: row.issuer_offer_id,
    holderDid: row.holder_did,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    status: row.status,
    createdAt: row.created_at,
  };
}

/**
 * Holders' credentials on PostgreSQL. The raw SD-JWT and the decoded claims are personal data:
 * they are sealed (AES-256-GCM envelope under KEY_ENCRYPTION_KEYS) and opened only for the owner.
 */
export function createCredentialStore(database: Kysely<unknown>, sealer: EnvelopeSealer): CredentialRepository {
  const db = database as Kysely<HolderTables>;
  const open = (row: Selectable<CredentialsTable>): StoredCredential => {
    const content = JSON.parse(
      new TextDecoder().decode(sealer.open(row.sealed_content, credentialContext(row.id))),
    ) as SealedContent;
    return {
      ...toSummary(row),
      raw: content.raw,
      claims: content.claims,
      ...(content.notification ? { notification: content.notification } : {}),
      reference:
        row.reference_chain && row.reference_object_id
          ? {
              chain: row.reference_chain,
              objectId: row.reference_object_id,
              ...(row.reference_issuer_salt ? { issuerSalt: row.reference_issuer_salt } : {}),
              ...(row.reference_anchor ? { anchor: JSON.parse(row.reference_anchor) as AnchorProof } : {}),
            }
          : undefined,
    };
  };
  const active = (userUuid: string) =>
    db.selectFrom("credentials").selectAll().where("user_uuid", "=", userUuid).where("deleted_at", "is", null);
  return {
    async insert(credential) {
      const content: SealedContent = {
        raw: credential.raw,
        claims: credential.claims,
        ...(credential.notification ? { notification: credential.notification } : {}),
      };
      await db
        .insertInto("credentials")
        .values({
          id: credential.id,
          user_uuid: credential.userUuid,
          format: credential.format,
          vct: credential.vct,
          issuer_did: credential.issuerDid,
          credential_issuer: credential.credentialIssuer,
          credential_configuration_id: credential.credentialConfigurationId,
          issuer_credential_id: credential.issuerCredentialId,
          issuer_offer_id: credential.issuerOfferId,
          holder_did: credential.holderDid,
          issued_at: credential.issuedAt,
          expires_at: credential.expiresAt,
          status: credential.status,
          reference_chain: credential.reference?.chain ?? null,
          reference_object_id: credential.reference?.objectId ?? null,
          reference_issuer_salt: credential.reference?.issuerSalt ?? null,
          reference_anchor: credential.reference?.anchor ? JSON.stringify(credential.reference.anchor) : null,
          sealed_content: sealer.seal(
            new TextEncoder().encode(JSON.stringify(content)),
            credentialContext(credential.id),
          ),
          created_at: credential.createdAt,
          deleted_at: null,
        })
        .execute();
    },
    async find(userUuid, id) {
      const row = await active(userUuid).where("id", "=", id).executeTakeFirst();
      return row ? open(row) : undefined;
    },
    async listWithContents(userUuid) {
      const rows = await active(userUuid).orderBy("created_at").orderBy("id").execute();
      return rows.map(open);
    },
    async recordAnchor(userUuid, id, anchor) {
      await db
        .updateTable("credentials")
        .set({ reference_anchor: JSON.stringify(anchor) })
        .where("user_uuid", "=", userUuid)
        .where("id", "=", id)
        .execute();
    },
    async softDelete(userUuid, id, at) {
      const result = await db
        .updateTable("credentials")
        .set({ deleted_at: at })
        .where("user_uuid", "=", userUuid)
        .where("id", "=", id)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
