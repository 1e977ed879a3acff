import type { Kysely, Selectable, Transaction } from "kysely";
import type { AuthorizationCode } from "../domain/authorization/authorization-code.js";
import type { AuthorizationCodeRepository } from "../domain/ports.js";
import { type AuthorizationCodesTable, type AuthServerTables, orUndefined } from "./tables.js";

const REPLAYED_CODE = "authorization_code_replayed";

function toAuthorizationCode(row: Selectable<AuthorizationCodesTable>): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    authorizationRequestId: row.authorization_request_id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    dpopJkt: orUndefined(row.dpop_jkt),
    clientAttested: row.client_attested,
    grant: {
      tenant: row.tenant,
      offerId: row.offer_id,
      credentialConfigurationIds: row.credential_configuration_ids,
      dpopRequired: row.dpop_required,
    },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    redeemedAt: orUndefined(row.redeemed_at),
    accessTokenJti: orUndefined(row.access_token_jti),
    revokedAt: orUndefined(row.revoked_at),
  };
}

async function revokeToken(db: Transaction<AuthServerTables>, jti: string | null, expiresAt: Date) {
  if (jti === null) return;
  await db
    .insertInto("revoked_access_tokens")
    .values({ jti, expires_at: expiresAt, reason: REPLAYED_CODE })
    .onConflict((oc) => oc.column("jti").doNothing())
    .execute();
}

/** Authorization codes on PostgreSQL; redemption and revocation are row-locked updates. */
export function createAuthorizationCodeStore(database: Kysely<unknown>): AuthorizationCodeRepository {
  const db = database as Kysely<AuthServerTables>;
  return {
    async insert(code) {
      await db
        .insertInto("authorization_codes")
        .values({
          code_hash: code.codeHash,
          authorization_request_id: code.authorizationRequestId,
          client_id: code.clientId,
          redirect_uri: code.redirectUri,
          code_challenge: code.codeChallenge,
          dpop_jkt: code.dpopJkt ?? null,
          client_attested: code.clientAttested,
          tenant: code.grant.tenant,
          offer_id: code.grant.offerId,
          credential_configuration_ids: code.grant.credentialConfigurationIds,
          dpop_required: code.grant.dpopRequired,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
        })
        .execute();
    },

    async find(codeHash) {
      const row = await db
        .selectFrom("authorization_codes")
        .selectAll()
        .where("code_hash", "=", codeHash)
        .executeTakeFirst();
      return row ? toAuthorizationCode(row) : undefined;
    },

    async redeem(codeHash, now) {
      const row = await db
        .updateTable("authorization_codes")
        .set({ redeemed_at: now })
        .where("code_hash", "=", codeHash)
        .where("redeemed_at", "is", null)
        .where("expires_at", ">", now)
        .returningAll()
        .executeTakeFirst();
      return row ? toAuthorizationCode(row) : undefined;
    },

    async recordAccessToken(codeHash, token) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("authorization_codes")
          .set({ access_token_jti: token.jti, access_token_expires_at: token.expiresAt })
          .where("code_hash", "=", codeHash)
          .returning(["revoked_at"])
          .executeTakeFirst();
        const revoked = row?.revoked_at != null;
        if (revoked) await revokeToken(trx, token.jti, token.expiresAt);
        return { revoked };
      });
    },

    async revoke(codeHash, now) {
      await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("authorization_codes")
          .set((eb) => ({ revoked_at: eb.fn.coalesce("revoked_at", eb.val(now)) }))
          .where("code_hash", "=", codeHash)
          .returning(["access_token_jti", "access_token_expires_at"])
          .executeTakeFirst();
        if (row) await revokeToken(trx, row.access_token_jti, row.access_token_expires_at ?? now);
      });
    },

    async isAccessTokenRevoked(jti) {
      const row = await db.selectFrom("revoked_access_tokens").select("jti").where("jti", "=", jti).executeTakeFirst();
      return row !== undefined;
    },
  };
}
