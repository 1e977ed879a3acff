import type { PublicJwk, SignatureAlgorithm } from "@attesto/protocol";
import { type ColumnType, type Kysely, type QueryCreator, sql } from "kysely";
import type { IssuerSigningKey } from "../domain/issuer-signing-keys.js";
import type { IssuerSigningKeyRepository } from "../domain/ports.js";

/** Row of `issuer_signing_keys` (migration 0004). */
export interface IssuerSigningKeysTable {
  tenant: string;
  kid: string;
  did: string;
  public_jwk: ColumnType<PublicJwk, string, string>;
  alg: SignatureAlgorithm;
  first_used_at: Date;
}

type Tables = { issuer_signing_keys: IssuerSigningKeysTable };

/** The values `recordSigningKeyQuery` writes: the key's row, its JWK as JSON text. */
export interface SigningKeyValues {
  tenant: string;
  kid: string;
  did: string;
  public_jwk: string;
  alg: SignatureAlgorithm;
  first_used_at: Date;
}

export const signingKeyValues = (key: IssuerSigningKey, at: Date): SigningKeyValues => ({
  tenant: key.tenant,
  kid: key.kid,
  did: key.did,
  public_jwk: JSON.stringify(key.publicJwk),
  alg: key.alg,
  first_used_at: at,
});

/**
 * The upsert that records a verified key: the first use is kept, a `kid` recorded with another key
 * is replaced. Also run as part of the offer's insert (offer.store.ts). The values pass through
 * untouched, so the statement can be compiled once (`compileOnce`).
 */
export function recordSigningKeyQuery<DB extends Tables>(creator: QueryCreator<DB>, values: SigningKeyValues) {
  const qc = creator as unknown as QueryCreator<Tables>;
  return qc
    .insertInto("issuer_signing_keys")
    .values(values)
    .onConflict((conflict) =>
      conflict
        .columns(["tenant", "kid"])
        .doUpdateSet({
          did: values.did,
          public_jwk: values.public_jwk,
          alg: values.alg,
        })
        .where(sql`issuer_signing_keys.public_jwk`, "<>", sql`${values.public_jwk}::jsonb`),
    );
}

/** Tenants' DID-path signing keys on PostgreSQL (`db` is bound to the service's schema). */
export function createIssuerSigningKeyStore(database: Kysely<unknown>): IssuerSigningKeyRepository {
  const db = database as Kysely<Tables>;
  return {
    async record(key, at) {
      await recordSigningKeyQuery(db, signingKeyValues(key, at)).execute();
    },
    async listByTenant(tenant) {
      const rows = await db
        .selectFrom("issuer_signing_keys")
        .selectAll()
        .where("tenant", "=", tenant)
        .orderBy("first_used_at")
        .orderBy("kid")
        .execute();
      return rows.map((row) => ({
        tenant: row.tenant,
        kid: row.kid,
        did: row.did,
        publicJwk: row.public_jwk,
        alg: row.alg,
      }));
    },
  };
}
