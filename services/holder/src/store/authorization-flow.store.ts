import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import type { Kysely, Selectable } from "kysely";
import type { AuthorizationFlow, AuthorizationFlowSecrets } from "../domain/oid4vci/authorization-flow.js";
import type { AuthorizationFlowRepository } from "../domain/ports.js";
import type { AuthorizationFlowsTable, HolderTables } from "./tables.js";

/** AAD of a flow's sealed secrets: an envelope cannot be moved to another flow. */
export const authorizationFlowContext = (id: string) => `authorization-flow:${id}`;

function toFlow(row: Selectable<AuthorizationFlowsTable>): AuthorizationFlow {
  return {
    id: row.id,
    userUuid: row.user_uuid,
    status: row.status,
    credentialIssuer: row.credential_issuer,
    credentialConfigurationId: row.credential_configuration_id,
    credentialId: row.credential_id,
    error: row.error,
    errorDescription: row.error_description,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    endedAt: row.ended_at,
  };
}

/** Authorization code flows on PostgreSQL; their secrets sealed under KEY_ENCRYPTION_KEYS. */
export function createAuthorizationFlowStore(
  database: Kysely<unknown>,
  sealer: EnvelopeSealer,
): AuthorizationFlowRepository {
  const db = database as Kysely<HolderTables>;
  return {
    async insert(flow) {
      await db
        .insertInto("authorization_flows")
        .values({
          id: flow.id,
          user_uuid: flow.userUuid,
          state_hash: flow.stateHash,
          status: flow.status,
          credential_issuer: flow.credentialIssuer,
          credential_configuration_id: flow.credentialConfigurationId,
          credential_id: null,
          error: null,
          error_description: null,
          sealed_content: sealer.seal(
            new TextEncoder().encode(JSON.stringify(flow.secrets)),
            authorizationFlowContext(flow.id),
          ),
          created_at: flow.createdAt,
          expires_at: flow.expiresAt,
          ended_at: null,
        })
        .execute();
    },
    async countPending(userUuid, now) {
      const row = await db
        .selectFrom("authorization_flows")
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("user_uuid", "=", userUuid)
        .where("status", "=", "pending")
        .where("expires_at", ">", now)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    async claim(stateHash, now) {
      const row = await db
        .updateTable("authorization_flows")
        .set({ status: "redeeming" })
        .where("state_hash", "=", stateHash)
        .where("status", "=", "pending")
        .where("expires_at", ">", now)
        .returningAll()
        .executeTakeFirst();
      if (!row?.sealed_content) return undefined;
      const secrets = JSON.parse(
        new TextDecoder().decode(sealer.open(row.sealed_content, authorizationFlowContext(row.id))),
      ) as AuthorizationFlowSecrets;
      return { ...toFlow(row), secrets };
    },
    async findByStateHash(stateHash) {
      const row = await db
        .selectFrom("authorization_flows")
        .selectAll()
        .where("state_hash", "=", stateHash)
        .executeTakeFirst();
      return row ? toFlow(row) : undefined;
    },
    async find(userUuid, id) {
      const row = await db
        .selectFrom("authorization_flows")
        .selectAll()
        .where("user_uuid", "=", userUuid)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toFlow(row) : undefined;
    },
    async end(id, outcome, at) {
      await db
        .updateTable("authorization_flows")
        .set({
          status: outcome.status,
          credential_id: outcome.status === "completed" ? outcome.credentialId : null,
          error: outcome.status === "failed" ? outcome.error : null,
          error_description: outcome.status === "failed" ? outcome.errorDescription.slice(0, 500) : null,
          sealed_content: null,
          ended_at: at,
        })
        .where("id", "=", id)
        .execute();
    },
    async purge(before) {
      await db.deleteFrom("authorization_flows").where("expires_at", "<", before).execute();
    },
  };
}
