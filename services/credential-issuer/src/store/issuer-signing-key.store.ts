import type { PublicJwk, SignatureAlgorithm } from "@attesto/protocol";
import { type ColumnType, type Kysely, type QueryCreator, sql } from "kysely";
import type { IssuerSigningKey, IssuerSigningKeyRepository } from "../domain/issuer-signing-keys.js";

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

/**
 * The upsert that records a verified key: the first use is kept, a `kid` recorded with another key
 * is replaced. Also run as part of the offer's insert (offer.store.ts).
 */
export function recordSigningKeyQuery<DB extends Tables>(creator: QueryCreator<DB>, key: IssuerSigningKey, at: Date) {
  const qc = creator as unknown as QueryCreator<Tables>;
  const publicJwk = JSON.stringify(key.publicJwk);
  return qc
    .insertInto("issuer_signing_keys")
    .values({
      tenant: key.tenant,
      kid: key.kid,
      did: key.did,
      public_jwk: publicJwk,
      alg: key.alg,
      first_used_at: at,
    })
    .onConflict((conflict) =>
      conflict
        .columns(["tenant", "kid"])
        .doUpdateSet({
          did: key.did,
          public_jwk: publicJwk,
          alg: key.alg,
        })
        .where(sql`issuer_signing_keys.public_jwk`, "<>", sql`${publicJwk}::jsonb`),
    );
}

/** Tenants' DID-path signing keys on PostgreSQL (`db` is bound to the service's schema). */
export function createIssuerSigningKeyStore(database: Kysely<unknown>): IssuerSigningKeyRepository {
  const db = database as Kysely<Tables>;
  return {
    async record(key, at) {
      await recordSigningKeyQuery(db, key, at).execute();
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
