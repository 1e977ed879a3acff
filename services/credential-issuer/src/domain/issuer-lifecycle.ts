import { type CacheScope, createCacheScope } from "@attesto/protocol/cache";
import type { IssuerDependencies } from "./ports.js";

/**
 * Whether the tenant may issue now, for an offer made at `offeredAt` when one is concerned. The
 * trust registry owns the tenant lifecycle (its README, "Tenant lifecycle"); GetTenant knows active
 * tenants only. The directory is never behind it (a coherent cache emptied by every committed
 * change, clients/trust-registry-tenants.ts): a tenant deactivated a moment ago is refused at once
 * on every replica (with `scope`, made when the request began: deactivated before the request
 * began; `createCacheScope`). An offer made before the tenant's
 * last reactivation was open when it was deactivated, and that expired it for good.
 */
export async function isIssuerActive(
  deps: Pick<IssuerDependencies, "tenants">,
  tenant: string,
  offeredAt?: Date,
  scope?: CacheScope,
): Promise<boolean> {
  const found = await deps.tenants.find(tenant, scope);
  if (!found) return false;
  return !(offeredAt && found.reactivatedAt && offeredAt.getTime() < found.reactivatedAt.getTime());
}

/**
 * The cache scope of a request that checks its tenant after its first statement (the offer read or
 * redemption, which names the tenant): made when the request began, its barrier sent at once, so
 * the barrier's round trip runs beside the statement instead of after it (one round trip less in
 * series per request). The guarantee is the scope's: a deactivation committed before the request
 * began is seen (test/replicas/cache-coherence.test.ts).
 */
export function requestTenantScope(deps: Pick<IssuerDependencies, "tenants">): CacheScope {
  const scope = createCacheScope();
  deps.tenants.prepare(scope);
  return scope;
}

/** The fixed text of every refusal because the issuing tenant was deactivated. */
export const INACTIVE_ISSUER = "the credential issuer is no longer active";
