import type { tenantV1 } from "@attesto/proto";
import { type CacheInvalidations, createCoherentCache } from "@attesto/runtime/cache";
import { fromRpcError } from "@attesto/runtime/rpc";
import { TRUST_REGISTRY_TOPICS } from "@attesto/tenant-client";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { IssuerTenant, TenantDirectory } from "../domain/ports.js";

/** Tenants remembered at once (the least recently used goes first). */
const CACHED_TENANTS = 1_000;

/**
 * Tenants from TenantService.GetTenant (trust registry). Unknown (or deactivated) tenants are
 * undefined, outages 503. Kept in a coherent cache that every committed change of the trust
 * registry's tenants or credential configurations empties before the next read, on every replica:
 * so every read is as fresh as asking (`fresh` asks nothing more). Guarantees kept: a deactivated
 * tenant is refused at once (issuer-lifecycle.ts), a credential type added with `attesto types add`
 * is offered at once. Without trustworthy invalidations (PGlite, listener down) every read asks.
 */
export function createTrustRegistryTenants(
  client: Client<typeof tenantV1.TenantService>,
  invalidations: CacheInvalidations,
): TenantDirectory {
  const cache = createCoherentCache<IssuerTenant | undefined>({
    invalidations,
    topics: [TRUST_REGISTRY_TOPICS.tenants, TRUST_REGISTRY_TOPICS.credentialConfigurations],
    max: CACHED_TENANTS,
  });
  const load = async (tenant: string): Promise<IssuerTenant | undefined> => {
    try {
      const response = await client.getTenant({ tenant });
      if (!response.tenant) return undefined;
      return {
        tenant: response.tenant.tenant,
        name: response.tenant.name,
        configurations: response.credentialConfigurations.map(({ id, type, version, vct }) => ({
          id,
          type,
          version,
          vct,
        })),
        ...(response.tenant.reactivatedAt ? { reactivatedAt: timestampDate(response.tenant.reactivatedAt) } : {}),
      };
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return undefined;
      throw fromRpcError(error, "Trust registry");
    }
  };
  return {
    find: (tenant, scope) => cache.get(tenant, () => load(tenant), scope),
    prepare: (scope) => cache.prepare(scope),
  };
}
