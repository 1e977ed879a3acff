import { type CacheInvalidations, createCoherentCache, NO_INVALIDATIONS } from "@attesto/runtime/cache";
import { compileOnce } from "@attesto/store";
import { type ColumnType, type Kysely, type Selectable, sql } from "kysely";
import type { IssuerConfiguration, OfferedConfiguration } from "../domain/issuer-configuration.js";
import type { IssuerConfigurationRepository } from "../domain/ports.js";

/** Row of `issuer_configurations` (migrations 0003, 0008). */
interface IssuerConfigurationsTable {
  tenant: string;
  issuer_name: string;
  credential_configurations: ColumnType<OfferedConfiguration[], string, string>;
  signing_mode: "did" | "x509" | null;
  signing_key_id: string | null;
  default_offer_ttl_seconds: number | null;
  status_list_size: number | null;
  digest: string;
  updated_at: Date;
}

type Tables = { issuer_configurations: IssuerConfigurationsTable };

function toConfiguration(row: Selectable<IssuerConfigurationsTable>): IssuerConfiguration {
  return {
    tenant: row.tenant,
    issuerName: row.issuer_name,
    credentialConfigurations: row.credential_configurations,
    ...(row.signing_mode === null ? {} : { signingMode: row.signing_mode }),
    ...(row.signing_key_id === null ? {} : { signingKeyId: row.signing_key_id }),
    ...(row.default_offer_ttl_seconds === null ? {} : { defaultOfferTtlSeconds: row.default_offer_ttl_seconds }),
    ...(row.status_list_size === null ? {} : { statusListSize: row.status_list_size }),
    digest: row.digest,
    updatedAt: row.updated_at,
  };
}

/** The cache topic every change of `issuer_configurations` notifies (migration 0011's trigger). */
export const ISSUER_CONFIGURATIONS_TOPIC = "credential-issuer.issuer-configurations";
/** Tenants' configurations remembered at once (the least recently used goes first). */
const CACHED_CONFIGURATIONS = 1_000;

/**
 * Issuer configurations on PostgreSQL (`db` is bound to the service's schema); keyed by tenant.
 * `find` (on every offer) answers from a coherent cache that every committed change of the table
 * empties before the next read, on every replica. Guarantee kept: a configuration applied or
 * deleted through any replica is what the next offer sees (no time window).
 */
export function createIssuerConfigurationStore(
  database: Kysely<unknown>,
  invalidations: CacheInvalidations = NO_INVALIDATIONS,
): IssuerConfigurationRepository {
  const db = database as Kysely<Tables>;
  const find = compileOnce(db, { tenant: "string" }, (db, args) =>
    db.selectFrom("issuer_configurations").selectAll().where("tenant", "=", args.tenant),
  );
  const cache = createCoherentCache<IssuerConfiguration | undefined>({
    invalidations,
    topics: [ISSUER_CONFIGURATIONS_TOPIC],
    max: CACHED_CONFIGURATIONS,
  });
  return {
    find: (tenant, scope) =>
      cache.get(
        tenant,
        async () => {
          const row = await find.takeFirst({ tenant });
          return row ? toConfiguration(row) : undefined;
        },
        scope,
      ),

    async put(configuration) {
      const values = {
        tenant: configuration.tenant,
        issuer_name: configuration.issuerName,
        credential_configurations: JSON.stringify(configuration.credentialConfigurations),
        signing_mode: configuration.signingMode ?? null,
        signing_key_id: configuration.signingKeyId ?? null,
        default_offer_ttl_seconds: configuration.defaultOfferTtlSeconds ?? null,
        status_list_size: configuration.statusListSize ?? null,
        digest: configuration.digest,
        updated_at: configuration.updatedAt,
      };
      const { tenant: _tenant, ...changes } = values;
      // One statement: concurrent applies of the same digest write once, different digests last-wins.
      const written = await db
        .insertInto("issuer_configurations")
        .values(values)
        .onConflict((oc) =>
          oc
            .column("tenant")
            .doUpdateSet(changes)
            .where(sql<boolean>`issuer_configurations.digest IS DISTINCT FROM excluded.digest`),
        )
        .returning("tenant")
        .executeTakeFirst();
      return written !== undefined;
    },

    async delete(tenant) {
      const result = await db.deleteFrom("issuer_configurations").where("tenant", "=", tenant).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
