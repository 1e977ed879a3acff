import type { Kysely, Selectable } from "kysely";
import { DidAlreadyHeldError, type DidRepository } from "../domain/ports.js";
import { DID_METHOD, type TenantDid } from "../domain/tenant-did.js";
import type { TenantDidsTable, TrustRegistryTables } from "./tables.js";
import { uniqueViolationOf } from "./unique-violation.js";

function toTenantDid(row: Selectable<TenantDidsTable>): TenantDid {
  return {
    did: row.did,
    tenant: row.tenant,
    keyId: row.key_id,
    custodyKeyId: row.custody_key_id,
    source: row.source,
    status: row.status,
    createdAt: row.created_at,
  };
}

/** Tenants' DIDs on PostgreSQL (`db` is already bound to the service's schema). */
export function createDidStore(database: Kysely<unknown>, now: () => Date): DidRepository {
  const db = database as Kysely<TrustRegistryTables>;
  return {
    async insert(did) {
      try {
        const row = await db
          .insertInto("tenant_dids")
          .values({
            did: did.did,
            tenant: did.tenant,
            key_id: did.keyId,
            custody_key_id: did.custodyKeyId,
            method: DID_METHOD,
            source: did.source,
            status: "active",
            created_at: now(),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toTenantDid(row);
      } catch (error) {
        if (uniqueViolationOf(error) !== undefined) throw new DidAlreadyHeldError(did.did, { cause: error });
        throw error;
      }
    },

    async find(did) {
      const row = await db.selectFrom("tenant_dids").selectAll().where("did", "=", did).executeTakeFirst();
      return row ? toTenantDid(row) : undefined;
    },

    async listActive(tenant) {
      const rows = await db
        .selectFrom("tenant_dids")
        .selectAll()
        .where("tenant", "=", tenant)
        .where("status", "=", "active")
        .orderBy("created_at")
        .orderBy("did")
        .execute();
      return rows.map(toTenantDid);
    },

    async listActiveIssuers() {
      const rows = await db
        .selectFrom("tenants")
        .leftJoin("tenant_dids", (join) =>
          join.onRef("tenant_dids.tenant", "=", "tenants.tenant").on("tenant_dids.status", "=", "active"),
        )
        .select(["tenants.tenant", "tenant_dids.did"])
        .where("tenants.deactivated_at", "is", null)
        .where("tenants.is_issuer", "=", true)
        .orderBy("tenants.tenant")
        .orderBy("tenant_dids.did")
        .execute();
      const issuers = new Map<string, string[]>();
      for (const row of rows) {
        const dids = issuers.get(row.tenant) ?? [];
        if (row.did) dids.push(row.did);
        issuers.set(row.tenant, dids);
      }
      return [...issuers].map(([tenant, dids]) => ({ tenant, dids }));
    },
  };
}
