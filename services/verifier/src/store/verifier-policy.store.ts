import { type CacheInvalidations, createCoherentCache, NO_INVALIDATIONS } from "@attesto/runtime/cache";
import { compileOnce } from "@attesto/store";
import { type Kysely, type Selectable, sql } from "kysely";
import type { VerifierPolicy } from "../domain/policy/verifier-policy.js";
import type { VerifierPolicyRepository } from "../domain/ports.js";
import type { VerifierPoliciesTable, VerifierTables } from "./tables.js";

/** JSON parameters are sent as text and cast: pg would send a JS array as a PostgreSQL array. */
const jsonb = (value: unknown) => sql<never>`${JSON.stringify(value)}::jsonb`;

export function toPolicy(row: Selectable<VerifierPoliciesTable>): VerifierPolicy {
  return {
    tenant: row.tenant,
    name: row.name,
    trustedIssuerDids: row.trusted_issuer_dids,
    trustedX509RootsDer: row.trusted_x509_roots.map((der) => new Uint8Array(Buffer.from(der, "base64"))),
    acceptedVcts: row.accepted_vcts,
    requiredClaims: row.required_claims,
    verificationMode: row.verification_mode ?? undefined,
    sessionTtlSeconds: row.session_ttl_seconds ?? undefined,
    acceptAnyIssuer: row.accept_any_issuer,
    acceptUnknownStatus: row.accept_unknown_status,
    verifierCertificate: row.verifier_certificate ?? undefined,
    digest: row.digest,
    updatedAt: row.updated_at,
  };
}

/** The cache topic every change of `verifier_policies` notifies (migration 0007's trigger). */
export const VERIFIER_POLICIES_TOPIC = "verifier.verifier-policies";
/** Tenants whose policies are remembered at once (the least recently used goes first). */
const CACHED_TENANTS = 1_000;

/**
 * Verifier policies on PostgreSQL (`database` is already bound to the verifier's schema).
 * `current` (on a presentation) answers from a coherent cache that every committed change of the
 * table empties before the next read, on every replica. Guarantee kept: a policy applied or
 * deleted through any replica before a presentation began is what that presentation is verified by.
 */
export function createVerifierPolicyStore(
  database: Kysely<unknown>,
  invalidations: CacheInvalidations = NO_INVALIDATIONS,
): VerifierPolicyRepository {
  const db = database as Kysely<VerifierTables>;
  const cache = createCoherentCache<VerifierPolicy[]>({
    invalidations,
    topics: [VERIFIER_POLICIES_TOPIC],
    max: CACHED_TENANTS,
  });
  const listByTenant = async (tenant: string) => {
    const rows = await db
      .selectFrom("verifier_policies")
      .selectAll()
      .where("tenant", "=", tenant)
      .orderBy("name")
      .execute();
    return rows.map(toPolicy);
  };
  // Read by every session created: compiled once.
  const findOne = compileOnce(db, { tenant: "string", name: "string" }, (db, args) =>
    db.selectFrom("verifier_policies").selectAll().where("tenant", "=", args.tenant).where("name", "=", args.name),
  );
  const find = async (tenant: string, name: string) => {
    const row = await findOne.takeFirst({ tenant, name });
    return row ? toPolicy(row) : undefined;
  };
  return {
    async apply(policy) {
      const values = {
        tenant: policy.tenant,
        name: policy.name,
        trusted_issuer_dids: jsonb(policy.trustedIssuerDids),
        trusted_x509_roots: jsonb(policy.trustedX509RootsDer.map((der) => Buffer.from(der).toString("base64"))),
        accepted_vcts: jsonb(policy.acceptedVcts),
        required_claims: jsonb(policy.requiredClaims),
        verification_mode: policy.verificationMode ?? null,
        session_ttl_seconds: policy.sessionTtlSeconds ?? null,
        accept_any_issuer: policy.acceptAnyIssuer,
        accept_unknown_status: policy.acceptUnknownStatus,
        verifier_certificate: policy.verifierCertificate ?? null,
        digest: policy.digest,
        updated_at: policy.updatedAt,
      };
      // One statement: a concurrent apply of the same digest changes nothing; another digest replaces.
      const written = await db
        .insertInto("verifier_policies")
        .values(values)
        .onConflict((conflict) =>
          conflict
            .columns(["tenant", "name"])
            .doUpdateSet((eb) => ({
              trusted_issuer_dids: eb.ref("excluded.trusted_issuer_dids"),
              trusted_x509_roots: eb.ref("excluded.trusted_x509_roots"),
              accepted_vcts: eb.ref("excluded.accepted_vcts"),
              required_claims: eb.ref("excluded.required_claims"),
              verification_mode: eb.ref("excluded.verification_mode"),
              session_ttl_seconds: eb.ref("excluded.session_ttl_seconds"),
              accept_any_issuer: eb.ref("excluded.accept_any_issuer"),
              accept_unknown_status: eb.ref("excluded.accept_unknown_status"),
              verifier_certificate: eb.ref("excluded.verifier_certificate"),
              digest: eb.ref("excluded.digest"),
              updated_at: eb.ref("excluded.updated_at"),
            }))
            .whereRef("verifier_policies.digest", "<>", "excluded.digest"),
        )
        .returningAll()
        .executeTakeFirst();
      if (written) return { policy: toPolicy(written), changed: true };
      const stored = await find(policy.tenant, policy.name);
      if (!stored) throw new Error("verifier policy vanished during apply");
      return { policy: stored, changed: false };
    },
    async delete(tenant, name) {
      const result = await db
        .deleteFrom("verifier_policies")
        .where("tenant", "=", tenant)
        .where("name", "=", name)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    find,
    listByTenant,
    current: (tenant, scope) => cache.get(tenant, () => listByTenant(tenant), scope),
  };
}
