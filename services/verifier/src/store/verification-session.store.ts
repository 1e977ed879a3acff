import type { ResponseEncryptionPublicJwk } from "@attesto/protocol";
import { type Kysely, type Selectable, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { VerificationSession } from "../domain/verification-session.js";
import type { VerificationSessionRepository } from "../domain/verification-session-repository.js";
import type { VerificationSessionsTable, VerifierPoliciesTable, VerifierTables } from "./tables.js";
import { toPolicy } from "./verifier-policy.store.js";

/** JSON parameters are sent as text and cast: pg would send a JS array as a PostgreSQL array. */
const json = (value: unknown) => (value === undefined ? null : sql<never>`${JSON.stringify(value)}::json`);
const jsonb = (value: unknown) => sql<never>`${JSON.stringify(value)}::jsonb`;

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function toSession(row: Selectable<VerificationSessionsTable>): VerificationSession {
  return {
    id: row.id,
    tenant: row.tenant,
    requestUriId: row.request_uri_id,
    state: row.state,
    nonce: row.nonce,
    clientId: row.client_id,
    requestKid: orUndefined(row.request_kid),
    responseMode: row.response_mode,
    dcqlQuery: row.dcql_query,
    clientMetadata: orUndefined(row.client_metadata),
    redirectUri: orUndefined(row.redirect_uri),
    encryptionKid: orUndefined(row.encryption_kid),
    encryptionPublicJwk: (row.encryption_public_jwk ?? undefined) as ResponseEncryptionPublicJwk | undefined,
    signingKeyEnvelope: orUndefined(row.signing_key_envelope),
    encryptionKeyEnvelope: orUndefined(row.encryption_key_envelope),
    status: row.status,
    verificationMode: orUndefined(row.verification_mode),
    checkResults: orUndefined(row.check_results),
    presentationMetadata: orUndefined(row.presentation_metadata),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    submittedAt: orUndefined(row.submitted_at),
    verifiedAt: orUndefined(row.verified_at),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The session repository on PostgreSQL (`database` is already bound to the verifier's schema). */
export function createVerificationSessionStore(database: Kysely<unknown>): VerificationSessionRepository {
  const db = database as Kysely<VerifierTables>;
  const findBy = async (column: "id" | "request_uri_id", value: string) => {
    const row = await db.selectFrom("verification_sessions").selectAll().where(column, "=", value).executeTakeFirst();
    return row ? toSession(row) : undefined;
  };
  return {
    async insert(session, lifetime) {
      // The tenant's shortest policy TTL caps the lifetime; LEAST ignores NULL (nothing requested,
      // or no policy TTL), and with neither the default applies.
      const shortestPolicyTtl = db
        .selectFrom("verifier_policies")
        .select((eb) => eb.fn.min("session_ttl_seconds").as("ttl"))
        .where("tenant", "=", session.tenant);
      const seconds = sql<number>`coalesce(least(${lifetime.requestedSeconds ?? null}::integer, (${shortestPolicyTtl})), ${lifetime.defaultSeconds}::integer)`;
      const row = await db
        .insertInto("verification_sessions")
        .values({
          id: session.id,
          tenant: session.tenant,
          request_uri_id: session.requestUriId,
          state: session.state,
          nonce: session.nonce,
          client_id: session.clientId,
          request_kid: session.requestKid ?? null,
          response_mode: session.responseMode,
          dcql_query: json(session.dcqlQuery),
          client_metadata: json(session.clientMetadata),
          redirect_uri: session.redirectUri ?? null,
          encryption_kid: session.encryptionKid ?? null,
          encryption_public_jwk: json(session.encryptionPublicJwk),
          signing_key_envelope: session.signingKeyEnvelope ?? null,
          encryption_key_envelope: session.encryptionKeyEnvelope ?? null,
          status: session.status,
          verification_mode: session.verificationMode ?? null,
          check_results: session.checkResults ? jsonb(session.checkResults) : null,
          presentation_metadata: json(session.presentationMetadata),
          created_at: session.createdAt,
          expires_at: sql<Date>`${session.createdAt}::timestamptz + make_interval(secs => ${seconds})`,
          submitted_at: session.submittedAt ?? null,
          verified_at: session.verifiedAt ?? null,
        })
        .returning("expires_at")
        .executeTakeFirstOrThrow();
      return row.expires_at;
    },
    findById: (id) => (UUID.test(id) ? findBy("id", id) : Promise.resolve(undefined)),
    findByRequestUriId: (requestUriId) => findBy("request_uri_id", requestUriId),
    async findForPresentation(by) {
      const [column, value] =
        "state" in by ? (["state", by.state] as const) : (["encryption_kid", by.encryptionKid] as const);
      // The policies of the session's own tenant, as a JSON array in the same row (timestamps as text).
      const row = await db
        .selectFrom("verification_sessions")
        .selectAll("verification_sessions")
        .select((eb) =>
          jsonArrayFrom(
            eb
              .selectFrom("verifier_policies")
              .selectAll("verifier_policies")
              .whereRef("verifier_policies.tenant", "=", "verification_sessions.tenant")
              .orderBy("verifier_policies.name"),
          ).as("tenant_policies"),
        )
        .where(column, "=", value)
        .executeTakeFirst();
      if (!row) return undefined;
      const { tenant_policies: policyRows, ...sessionRow } = row;
      const policies = (
        policyRows as unknown as Array<Omit<VerifierPoliciesTable, "updated_at"> & { updated_at: string }>
      ).map((policy) => toPolicy({ ...policy, updated_at: new Date(policy.updated_at) }));
      return { session: toSession(sessionRow), policies };
    },
    async startVerification(id, mode, now) {
      const result = await db
        .updateTable("verification_sessions")
        .set({ status: "in_progress", verification_mode: mode, submitted_at: now })
        .where("id", "=", id)
        .where("status", "=", "pending")
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    async recordOutcome(id, outcome) {
      await db
        .updateTable("verification_sessions")
        .set({
          status: outcome.status,
          check_results: jsonb(outcome.checkResults),
          presentation_metadata: json(outcome.presentationMetadata),
          verified_at: outcome.verifiedAt,
          signing_key_envelope: null,
          encryption_key_envelope: null,
        })
        .where("id", "=", id)
        .where("status", "=", "in_progress")
        .execute();
    },
    async failInterrupted(submittedBefore, checkResult, now) {
      const result = await db
        .updateTable("verification_sessions")
        .set({
          status: "failed",
          check_results: jsonb([checkResult]),
          verified_at: now,
          signing_key_envelope: null,
          encryption_key_envelope: null,
        })
        .where("status", "=", "in_progress")
        .where("submitted_at", "<", submittedBefore)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async dropKeysOfExpiredSessions(now) {
      const result = await db
        .updateTable("verification_sessions")
        .set({ signing_key_envelope: null, encryption_key_envelope: null })
        .where("signing_key_envelope", "is not", null)
        .where("expires_at", "<=", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
