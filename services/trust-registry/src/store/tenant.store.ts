import { compileOnce } from "@attesto/store";
import { type Kysely, type Selectable, sql } from "kysely";
import { DuplicateTenantError, type TenantRepository } from "../domain/ports.js";
import type { CredentialConfiguration, TenantAccount } from "../domain/tenant.js";
import type { TenantLifecycleEvent } from "../domain/tenant-lifecycle.js";

/** Who a lifecycle transition is recorded as when the caller is not named (direct use in tests). */
const DEFAULT_ACTOR = "unknown";

import type { TenantsTable, TrustRegistryTables } from "./tables.js";
import { uniqueViolationOf } from "./unique-violation.js";

/** Which field a unique index protects (names from migrations/0001-tenants.ts). */
const FIELD_BY_CONSTRAINT: Record<string, "tenant" | "email"> = {
  tenants_tenant_key: "tenant",
  tenants_email_key: "email",
};

function toAccount(row: Selectable<TenantsTable>): TenantAccount {
  return {
    accountUuid: row.account_uuid,
    tenant: row.tenant,
    name: row.name,
    email: row.email,
    passwordHash: row.password_hash,
    isIssuer: row.is_issuer,
    isVerifier: row.is_verifier,
    status: row.status,
    createdAt: row.created_at,
    ...(row.reactivated_at ? { reactivatedAt: row.reactivated_at } : {}),
  };
}

/** The tenant's row, locked for this transaction (serializes key and activation changes of one tenant). */
const lockTenant = (trx: Kysely<TrustRegistryTables>, tenant: string) =>
  trx
    .selectFrom("tenants")
    .select(["account_uuid", "deactivated_at"])
    .where("tenant", "=", tenant)
    .forUpdate()
    .executeTakeFirst();

/** Revokes the account's valid keys; how many. */
async function revokeKeysOf(trx: Kysely<TrustRegistryTables>, accountUuid: string, at: Date): Promise<number> {
  const result = await trx
    .updateTable("api_keys")
    .set({ revoked_at: at })
    .where("account_uuid", "=", accountUuid)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The tenant repository on PostgreSQL (`db` is already bound to the service's schema); every
 * timestamp it writes is `now()` (the service's clock), not the database's.
 */
export function createTenantStore(database: Kysely<unknown>, now: () => Date): TenantRepository {
  const db = database as Kysely<TrustRegistryTables>;
  // Every call with an API key looks it up: compiled once.
  const apiKeyLookup = compileOnce(db, { keyHash: "string" }, (db, args) =>
    db
      .selectFrom("api_keys")
      .innerJoin("tenants", "tenants.account_uuid", "api_keys.account_uuid")
      .selectAll("tenants")
      .select("api_keys.key_hash")
      .where("api_keys.key_hash", "=", args.keyHash)
      .where("api_keys.revoked_at", "is", null)
      .where("tenants.deactivated_at", "is", null),
  );

  const insertConfigurations = async (
    executor: Kysely<TrustRegistryTables>,
    tenant: string,
    configurations: CredentialConfiguration[],
  ) => {
    if (configurations.length === 0) return;
    await executor
      .insertInto("tenant_credential_configurations")
      .values(
        configurations.map((c) => ({
          tenant,
          config_id: c.id,
          type: c.type,
          version: c.version,
          vct: c.vct,
          created_at: now(),
        })),
      )
      .onConflict((oc) => oc.columns(["tenant", "config_id"]).doNothing())
      .execute();
  };

  /** An active tenant (deactivated ones are unknown to lookups) by its account UUID or identifier. */
  /** Appends a lifecycle transition to the audit record (in the transaction of the change). */
  const recordEvent = (trx: Kysely<TrustRegistryTables>, tenant: string, event: TenantLifecycleEvent, actor: string) =>
    trx.insertInto("tenant_lifecycle_events").values({ tenant, event, actor, at: now() }).execute();

  const findActive = async (column: "account_uuid" | "tenant", value: string) => {
    const row = await db
      .selectFrom("tenants")
      .selectAll()
      .where(column, "=", value)
      .where("deactivated_at", "is", null)
      .executeTakeFirst();
    return row ? toAccount(row) : undefined;
  };

  return {
    async create(tenant) {
      try {
        await db.transaction().execute(async (trx) => {
          await trx
            .insertInto("tenants")
            .values({
              account_uuid: tenant.accountUuid,
              tenant: tenant.tenant,
              name: tenant.name,
              email: tenant.email,
              password_hash: tenant.passwordHash,
              is_issuer: tenant.isIssuer,
              is_verifier: tenant.isVerifier,
              status: tenant.status,
              created_at: now(),
              updated_at: now(),
            })
            .execute();
          await trx
            .insertInto("api_keys")
            .values({ key_hash: tenant.apiKeyHash, account_uuid: tenant.accountUuid, created_at: now() })
            .execute();
          await insertConfigurations(trx, tenant.tenant, tenant.credentialConfigurations);
        });
      } catch (error) {
        const constraint = uniqueViolationOf(error);
        const field = constraint === undefined ? undefined : FIELD_BY_CONSTRAINT[constraint];
        if (field) throw new DuplicateTenantError(field);
        throw error;
      }
    },

    findByAccountUuid: (accountUuid) => findActive("account_uuid", accountUuid),
    findByTenant: (tenant) => findActive("tenant", tenant),

    async emailExists(email) {
      const row = await db
        .selectFrom("tenants")
        .select("account_uuid")
        .where(sql<string>`lower(email)`, "=", email.toLowerCase())
        .executeTakeFirst();
      return row !== undefined;
    },

    async findByApiKeyHash(keyHash) {
      const row = await apiKeyLookup.takeFirst({ keyHash });
      if (!row) return undefined;
      const { key_hash, ...account } = row;
      return { account: toAccount(account), keyHash: key_hash };
    },

    async replaceApiKeys(tenant, newKeyHash) {
      return db.transaction().execute(async (trx) => {
        const account = await lockTenant(trx, tenant);
        if (!account || account.deactivated_at !== null) return false;
        await revokeKeysOf(trx, account.account_uuid, now());
        await trx
          .insertInto("api_keys")
          .values({ key_hash: newKeyHash, account_uuid: account.account_uuid, created_at: now() })
          .execute();
        return true;
      });
    },

    async revokeApiKeys(tenant) {
      return db.transaction().execute(async (trx) => {
        const account = await lockTenant(trx, tenant);
        if (!account || account.deactivated_at !== null) return undefined;
        return revokeKeysOf(trx, account.account_uuid, now());
      });
    },

    async deactivate(tenant, actor = DEFAULT_ACTOR) {
      return db.transaction().execute(async (trx) => {
        const account = await lockTenant(trx, tenant);
        if (!account) return { found: false, deactivated: false, revokedApiKeys: 0 };
        const deactivated = account.deactivated_at === null;
        if (deactivated) {
          await trx
            .updateTable("tenants")
            .set({ deactivated_at: now(), updated_at: now() })
            .where("account_uuid", "=", account.account_uuid)
            .execute();
          await recordEvent(trx, tenant, "deactivated", actor);
        }
        const revokedApiKeys = await revokeKeysOf(trx, account.account_uuid, now());
        // Nothing is delivered for a tenant that is gone: its endpoints and signing secret go.
        await trx.deleteFrom("tenant_webhooks").where("tenant", "=", tenant).execute();
        return { found: true, deactivated, revokedApiKeys };
      });
    },

    async reactivate(tenant, newKeyHash, actor = DEFAULT_ACTOR) {
      return db.transaction().execute(async (trx) => {
        const account = await lockTenant(trx, tenant);
        if (!account || account.deactivated_at === null) return false;
        await trx
          .updateTable("tenants")
          .set({ deactivated_at: null, reactivated_at: now(), updated_at: now() })
          .where("account_uuid", "=", account.account_uuid)
          .execute();
        await revokeKeysOf(trx, account.account_uuid, now());
        await trx
          .insertInto("api_keys")
          .values({ key_hash: newKeyHash, account_uuid: account.account_uuid, created_at: now() })
          .execute();
        await recordEvent(trx, tenant, "reactivated", actor);
        return true;
      });
    },

    async findLifecycle(tenant) {
      const row = await db
        .selectFrom("tenants")
        .select(["is_issuer", "deactivated_at"])
        .where("tenant", "=", tenant)
        .executeTakeFirst();
      return row ? { isIssuer: row.is_issuer, deactivatedAt: row.deactivated_at } : undefined;
    },

    async listLifecycleEvents(tenant) {
      return db
        .selectFrom("tenant_lifecycle_events")
        .select(["event", "actor", "at"])
        .where("tenant", "=", tenant)
        .orderBy("id")
        .execute();
    },

    async approve(tenant) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("tenants")
          .select("status")
          .where("tenant", "=", tenant)
          .where("deactivated_at", "is", null)
          .forUpdate()
          .executeTakeFirst();
        if (!row) return undefined;
        if (row.status === "APPROVED") return { wasPending: false };
        await trx
          .updateTable("tenants")
          .set({ status: "APPROVED", updated_at: now() })
          .where("tenant", "=", tenant)
          .execute();
        return { wasPending: true };
      });
    },

    async updateProfile(tenant, profile) {
      await db
        .updateTable("tenants")
        .set({
          name: profile.name,
          is_issuer: profile.isIssuer,
          is_verifier: profile.isVerifier,
          updated_at: now(),
        })
        .where("tenant", "=", tenant)
        .execute();
    },

    async listCredentialConfigurations(tenant) {
      const rows = await db
        .selectFrom("tenant_credential_configurations")
        .select(["config_id", "type", "version", "vct"])
        .where("tenant", "=", tenant)
        .orderBy(sql`config_id COLLATE "C"`)
        .execute();
      return rows.map((row) => ({ id: row.config_id, type: row.type, version: row.version, vct: row.vct }));
    },

    async addCredentialConfigurations(tenant, configurations) {
      await insertConfigurations(db, tenant, configurations);
    },

    async addCredentialConfigurationsToAll(configurations) {
      let added = 0;
      for (const c of configurations) {
        const result = await db
          .insertInto("tenant_credential_configurations")
          .columns(["tenant", "config_id", "type", "version", "vct", "created_at"])
          .expression((eb) =>
            eb
              .selectFrom("tenants")
              .select([
                "tenants.tenant",
                sql.val(c.id).as("config_id"),
                sql.val(c.type).as("type"),
                sql.val(c.version).as("version"),
                sql.val(c.vct).as("vct"),
                sql.val(now()).as("created_at"),
              ])
              .where("tenants.deactivated_at", "is", null),
          )
          .onConflict((oc) => oc.columns(["tenant", "config_id"]).doNothing())
          .executeTakeFirst();
        added += Number(result.numInsertedOrUpdatedRows ?? 0);
      }
      return added;
    },
  };
}
