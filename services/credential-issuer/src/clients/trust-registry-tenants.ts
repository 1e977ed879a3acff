import type { tenantV1 } from "@attesto/proto";
import { createLoadingCache } from "@attesto/runtime/cache";
import { fromRpcError } from "@attesto/runtime/rpc";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { IssuerTenant, TenantDirectory } from "../domain/ports.js";

/** How long a tenant's configurations are reused before asking the trust registry again. */
const TENANT_CACHE_TTL_MS = 10_000;
/** Tenants remembered at once (the least recently used goes first). */
const CACHED_TENANTS = 1_000;

/** Tenants from TenantService.GetTenant (trust registry). Unknown tenants are undefined, outages 503. */
export function createTrustRegistryTenants(client: Client<typeof tenantV1.TenantService>): TenantDirectory {
  const cache = createLoadingCache<IssuerTenant | undefined>({ max: CACHED_TENANTS, ttlMs: TENANT_CACHE_TTL_MS });
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
    find: (tenant, options) => {
      if (options?.fresh) cache.delete(tenant);
      return cache.get(tenant, () => load(tenant));
    },
  };
}
