import type { Kysely, Selectable } from "kysely";
import type { AuthorizationRequest } from "../domain/authorization/authorization-request.js";
import type { AuthorizationRequestRepository } from "../domain/ports.js";
import { type AuthorizationRequestsTable, type AuthServerTables, orUndefined } from "./tables.js";

/** Finished requests are kept this long (for support and audits), then purged now and then. */
const RETENTION_MS = 24 * 3600 * 1000;
const PURGE_PROBABILITY = 0.01;

function toAuthorizationRequest(row: Selectable<AuthorizationRequestsTable>): AuthorizationRequest {
  return {
    id: row.id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    state: orUndefined(row.state),
    issuerState: orUndefined(row.issuer_state),
    tenant: orUndefined(row.tenant),
    offerId: orUndefined(row.offer_id),
    credentialConfigurationIds: row.credential_configuration_ids,
    dpopJkt: orUndefined(row.dpop_jkt),
    clientAttested: row.client_attested,
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    browserSessionHash: orUndefined(row.browser_session_hash),
    csrfTokenHash: orUndefined(row.csrf_token_hash),
    consentExpiresAt: orUndefined(row.consent_expires_at),
    completedAt: orUndefined(row.completed_at),
  };
}

/** Authorization requests on PostgreSQL (`db` is bound to the service's schema). */
export function createAuthorizationRequestStore(database: Kysely<unknown>): AuthorizationRequestRepository {
  const db = database as Kysely<AuthServerTables>;
  return {
    async insert(request) {
      await db
        .insertInto("authorization_requests")
        .values({
          id: request.id,
          request_uri_hash: request.requestUriHash,
          client_id: request.clientId,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          state: request.state ?? null,
          issuer_state: request.issuerState ?? null,
          tenant: request.tenant ?? null,
          offer_id: request.offerId ?? null,
          credential_configuration_ids: request.credentialConfigurationIds,
          dpop_jkt: request.dpopJkt ?? null,
          client_attested: request.clientAttested,
          status: "pushed",
          created_at: request.createdAt,
          expires_at: request.expiresAt,
        })
        .execute();
      if (Math.random() < PURGE_PROBABILITY) {
        const before = new Date(request.createdAt.getTime() - RETENTION_MS);
        await db.deleteFrom("authorization_requests").where("created_at", "<", before).execute();
        await db.deleteFrom("browser_sessions").where("expires_at", "<", request.createdAt).execute();
        await db.deleteFrom("revoked_access_tokens").where("expires_at", "<", request.createdAt).execute();
      }
    },

    async findByRequestUriHash(requestUriHash) {
      const row = await db
        .selectFrom("authorization_requests")
        .selectAll()
        .where("request_uri_hash", "=", requestUriHash)
        .executeTakeFirst();
      return row ? toAuthorizationRequest(row) : undefined;
    },

    async findById(id) {
      const row = await db.selectFrom("authorization_requests").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toAuthorizationRequest(row) : undefined;
    },

    async present(requestUriHash, presentation) {
      const row = await db
        .updateTable("authorization_requests")
        .set({
          status: "presented",
          browser_session_hash: presentation.browserSessionHash,
          csrf_token_hash: presentation.csrfTokenHash,
          consent_expires_at: presentation.consentExpiresAt,
        })
        .where("request_uri_hash", "=", requestUriHash)
        .where("status", "=", "pushed")
        .where("expires_at", ">", presentation.now)
        .returningAll()
        .executeTakeFirst();
      return row ? toAuthorizationRequest(row) : undefined;
    },

    async complete(id, completion) {
      const row = await db
        .updateTable("authorization_requests")
        .set({ status: completion.decision, completed_at: completion.now })
        .where("id", "=", id)
        .where("status", "=", "presented")
        .where("browser_session_hash", "=", completion.browserSessionHash)
        .where("consent_expires_at", ">", completion.now)
        .returningAll()
        .executeTakeFirst();
      return row ? toAuthorizationRequest(row) : undefined;
    },
  };
}
