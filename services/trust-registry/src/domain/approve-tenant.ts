import { notFound } from "@attesto/runtime/errors";
import type { TrustRegistryDependencies } from "./ports.js";
import type { TenantAccount } from "./tenant.js";

export interface TenantApproval {
  account: TenantAccount;
  /** False when the tenant was already approved (approving is idempotent). */
  approved: boolean;
}

/**
 * Operator action (TenantService.ApproveTenant): a tenant that applied under `approval` admission
 * becomes APPROVED, and its API key works from the next request on. Idempotent; NOT_FOUND for an
 * unknown or deactivated tenant.
 */
export async function approveTenant(
  domain: Pick<TrustRegistryDependencies, "tenants">,
  tenant: string,
): Promise<TenantApproval> {
  const result = await domain.tenants.approve(tenant);
  const account = result && (await domain.tenants.findByTenant(tenant));
  if (!result || !account) throw notFound("Tenant not found");
  return { account, approved: result.wasPending };
}
