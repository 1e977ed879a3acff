import type { ResponseEncryptionPublicJwk } from "@attesto/protocol";
import { type ArgumentKinds, compileOnce } from "@attesto/store";
import { type Kysely, type Selectable, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { SessionLifetime, VerificationSessionRepository } from "../domain/ports.js";
import type { StoredSessionStatus, VerificationMode, VerificationSession } from "../domain/verification-session.js";
import type { VerificationSessionsTable, VerifierPoliciesTable, VerifierTables } from "./tables.js";
import { toPolicy } from "./verifier-policy.store.js";

/** JSON parameters are sent as text and cast: pg would send a JS array as a PostgreSQL array. */
const jsonb = (value: unknown) => sql<never>`${JSON.stringify(value)}::jsonb`;

/** The arguments of the one write that records a verified submission (`recordVerification`). */
interface VerificationValues {
  id: string;
  status: StoredSessionStatus;
  mode: VerificationMode;
  submitted_at: Date;
  response_code_hash: string | null;
  check_results: string;
  presentation_metadata: string | null;
  verified_at: Date;
}
const VERIFICATION_VALUES: ArgumentKinds<VerificationValues> = {
  id: "string",
  status: "string",
  mode: "string",
  submitted_at: "Date",
  response_code_hash: "string | null",
  check_results: "string",
  presentation_metadata: "string | null",
  verified_at: "Date",
};

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
    clientIdPrefix: orUndefined(row.client_id_prefix),
    signingKeyId: orUndefined(row.signing_key_id),
    requestX5c: orUndefined(row.request_x5c),
    responseCodeHash: orUndefined(row.response_code_hash),
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

/** JSON text of a json/jsonb column's value (cast in the statement), NULL for none. */
const jsonText = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

type JsonColumns =
  | "dcql_query"
  | "client_metadata"
  | "encryption_public_jwk"
  | "check_results"
  | "presentation_metadata"
  | "request_x5c";
/**
 * A session's row as statement arguments, json/jsonb columns as JSON text; `expires_at` is computed
 * in the statement from the lifetime asked for.
 */
type SessionValues = Omit<VerificationSessionsTable, JsonColumns | "expires_at"> & {
  [C in JsonColumns]: string | null;
} & { requested_seconds: number | null; default_seconds: number };
const SESSION_VALUES: ArgumentKinds<SessionValues> = {
  id: "string",
  tenant: "string",
  request_uri_id: "string",
  state: "string",
  nonce: "string",
  client_id: "string",
  request_kid: "string | null",
  response_mode: "string",
  dcql_query: "string | null",
  client_metadata: "string | null",
  redirect_uri: "string | null",
  encryption_kid: "string | null",
  encryption_public_jwk: "string | null",
  signing_key_envelope: "string | null",
  encryption_key_envelope: "string | null",
  client_id_prefix: "string | null",
  signing_key_id: "string | null",
  request_x5c: "string | null",
  response_code_hash: "string | null",
  status: "string",
  verification_mode: "string | null",
  check_results: "string | null",
  presentation_metadata: "string | null",
  created_at: "Date",
  submitted_at: "Date | null",
  verified_at: "Date | null",
  requested_seconds: "number | null",
  default_seconds: "number",
};

const sessionValues = (session: Omit<VerificationSession, "expiresAt">, lifetime: SessionLifetime): SessionValues => ({
  id: session.id,
  tenant: session.tenant,
  request_uri_id: session.requestUriId,
  state: session.state,
  nonce: session.nonce,
  client_id: session.clientId,
  request_kid: session.requestKid ?? null,
  response_mode: session.responseMode,
  dcql_query: jsonText(session.dcqlQuery),
  client_metadata: jsonText(session.clientMetadata),
  redirect_uri: session.redirectUri ?? null,
  encryption_kid: session.encryptionKid ?? null,
  encryption_public_jwk: jsonText(session.encryptionPublicJwk),
  signing_key_envelope: session.signingKeyEnvelope ?? null,
  encryption_key_envelope: session.encryptionKeyEnvelope ?? null,
  client_id_prefix: session.clientIdPrefix ?? null,
  signing_key_id: session.signingKeyId ?? null,
  request_x5c: jsonText(session.requestX5c),
  response_code_hash: session.responseCodeHash ?? null,
  status: session.status,
  verification_mode: session.verificationMode ?? null,
  check_results: session.checkResults ? JSON.stringify(session.checkResults) : null,
  presentation_metadata: jsonText(session.presentationMetadata),
  created_at: session.createdAt,
  submitted_at: session.submittedAt ?? null,
  verified_at: session.verifiedAt ?? null,
  requested_seconds: lifetime.requestedSeconds ?? null,
  default_seconds: lifetime.defaultSeconds,
});

/**
 * The session repository on PostgreSQL (`database` is already bound to the verifier's schema).
 * The statements of a verification are compiled once (`compileOnce`).
 */
export function createVerificationSessionStore(database: Kysely<unknown>): VerificationSessionRepository {
  const db = database as Kysely<VerifierTables>;
  const insert = compileOnce(db, SESSION_VALUES, (db, values: SessionValues) => {
    const { requested_seconds, default_seconds, ...row } = values;
    // The tenant's shortest policy TTL caps the lifetime; LEAST ignores NULL (nothing requested,
    // or no policy TTL), and with neither the default applies.
    const shortestPolicyTtl = db
      .selectFrom("verifier_policies")
      .select((eb) => eb.fn.min("session_ttl_seconds").as("ttl"))
      .where("tenant", "=", row.tenant);
    const seconds = sql<number>`coalesce(least(${requested_seconds}::integer, (${shortestPolicyTtl})), ${default_seconds}::integer)`;
    return db
      .insertInto("verification_sessions")
      .values({
        ...row,
        dcql_query: sql<never>`${row.dcql_query}::json`,
        client_metadata: sql<never>`${row.client_metadata}::json`,
        encryption_public_jwk: sql<never>`${row.encryption_public_jwk}::json`,
        check_results: sql<never>`${row.check_results}::jsonb`,
        presentation_metadata: sql<never>`${row.presentation_metadata}::json`,
        request_x5c: sql<never>`${row.request_x5c}::jsonb`,
        expires_at: sql<Date>`${row.created_at}::timestamptz + make_interval(secs => ${seconds})`,
      })
      .returning("expires_at");
  });
  const findBy = (column: "id" | "request_uri_id") => {
    const statement = compileOnce(db, { value: "string" }, (db, args) =>
      db.selectFrom("verification_sessions").selectAll().where(column, "=", args.value),
    );
    return async (value: string) => {
      const row = await statement.takeFirst({ value });
      return row ? toSession(row) : undefined;
    };
  };
  // The policies of the session's own tenant, as a JSON array in the same row (timestamps as text).
  const forPresentation = (column: "state" | "encryption_kid") =>
    compileOnce(db, { value: "string" }, (db, args) =>
      db
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
        .where(column, "=", args.value),
    );
  const byState = forPresentation("state");
  const byEncryptionKid = forPresentation("encryption_kid");
  // Single use (one presentation per session): the only write that takes a session out of pending,
  // conditional on it still being pending and unexpired when the presentation arrived. Of concurrent
  // submissions PostgreSQL lets one UPDATE match (the others re-check the row after it commits and
  // match nothing), so exactly one records its outcome; the checks ran before, so what is stored is
  // what that submission's verification decided.
  const record = compileOnce(db, VERIFICATION_VALUES, (db, args: VerificationValues) =>
    db
      .updateTable("verification_sessions")
      .set({
        status: args.status,
        verification_mode: args.mode,
        submitted_at: args.submitted_at,
        response_code_hash: args.response_code_hash,
        check_results: sql<never>`${args.check_results}::jsonb`,
        presentation_metadata: sql<never>`${args.presentation_metadata}::json`,
        verified_at: args.verified_at,
        signing_key_envelope: null,
        encryption_key_envelope: null,
      })
      .where("id", "=", args.id)
      .where("status", "=", "pending")
      .where("expires_at", ">", args.submitted_at),
  );
  const findById = findBy("id");
  return {
    async insert(session, lifetime) {
      const row = await insert.takeFirst(sessionValues(session, lifetime));
      if (!row) throw new Error("the session insert returned no row");
      return row.expires_at;
    },
    findById: (id) => (UUID.test(id) ? findById(id) : Promise.resolve(undefined)),
    findByRequestUriId: findBy("request_uri_id"),
    async findForPresentation(by) {
      const row =
        "state" in by
          ? await byState.takeFirst({ value: by.state })
          : await byEncryptionKid.takeFirst({ value: by.encryptionKid });
      if (!row) return undefined;
      const { tenant_policies: policyRows, ...sessionRow } = row;
      const policies = (
        policyRows as unknown as Array<Omit<VerifierPoliciesTable, "updated_at"> & { updated_at: string }>
      ).map((policy) => toPolicy({ ...policy, updated_at: new Date(policy.updated_at) }));
      return { session: toSession(sessionRow), policies };
    },
    async consumeResponseCode(id, hash) {
      const result = await db
        .updateTable("verification_sessions")
        .set({ response_code_hash: null })
        .where("id", "=", id)
        .where("response_code_hash", "=", hash)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    async recordVerification(id, verification) {
      const result = await record.execute({
        id,
        status: verification.status,
        mode: verification.mode,
        submitted_at: verification.submittedAt,
        response_code_hash: verification.responseCodeHash ?? null,
        check_results: JSON.stringify(verification.checkResults),
        presentation_metadata: jsonText(verification.presentationMetadata),
        verified_at: verification.verifiedAt,
      });
      return result.numAffectedRows === 1n;
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
