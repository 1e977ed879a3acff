import { notFound } from "@attesto/runtime/errors";
import type { TenantDeactivation, TenantRepository } from "./ports.js";

/**
 * Operator DeleteTenant: deactivates the tenant (domain/tenant-lifecycle.ts says what that stops), recorded
 * with `actor` in the lifecycle audit record. Its API keys are revoked and its webhooks removed
 * at once; from then on every lookup treats it as unknown (GetTenant, API keys, login, DID routes,
 * the DID configuration). Its records stay, so the identifier cannot be taken over by a new
 * registration; ApplyTenant reactivates it. Idempotent: unknown or already deactivated is success.
 */
export async function deleteTenant(
  dependencies: { tenants: TenantRepository },
  tenant: string,
  actor?: string,
): Promise<TenantDeactivation> {
  return dependencies.tenants.deactivate(tenant.toLowerCase(), actor);
}

/**
 * Operator RevokeApiKeys: revokes every API key of the tenant without issuing a new one (the tenant
 * acts again only after ReplaceApiKey). Idempotent; 404 for an unknown or deactivated tenant.
 */
export async function revokeApiKeys(dependencies: { tenants: TenantRepository }, tenant: string): Promise<number> {
  const revoked = await dependencies.tenants.revokeApiKeys(tenant.toLowerCase());
  if (revoked === undefined) throw notFound("Tenant not found");
  return revoked;
}
