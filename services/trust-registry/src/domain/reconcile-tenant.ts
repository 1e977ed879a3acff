import { randomUUID } from "node:crypto";
import { generateApiKey, hashApiKey } from "./api-key.js";
import { provisionCredentialConfigurations, toConflict } from "./apply-for-tenant.js";
import type { TrustRegistryDependencies } from "./ports.js";
import { DuplicateTenantError } from "./ports.js";
import type { TenantAccount } from "./tenant.js";

/** The operator's declaration of a tenant (Tenant custom resource). */
export interface DeclaredTenant {
  tenant: string;
  name: string;
  email?: string | undefined;
  isIssuer: boolean;
  isVerifier: boolean;
}

export interface ReconciledTenant {
  account: TenantAccount;
  /** Set only when this call created the tenant, or reactivated it after DeleteTenant. */
  apiKey?: string;
}

/**
 * Operator ApplyTenant: creates the tenant when absent (approved, no password: it cannot log in
 * until an operator gives it one), else updates its name and roles and approves it (a tenant the
 * operator declares is approved, also one that applied and is pending). A tenant deactivated by
 * DeleteTenant is reactivated with a new API key (its earlier keys stay revoked). Either way,
 * credential types registered since are added to its configurations. Idempotent.
 */
export async function reconcileTenant(
  domain: Pick<TrustRegistryDependencies, "tenants" | "credentialTypes" | "apiKeyFormat">,
  declared: DeclaredTenant,
  /** Who asked (recorded when this reactivates the tenant). */
  actor?: string,
): Promise<ReconciledTenant> {
  const configurations = provisionCredentialConfigurations(await domain.credentialTypes.listActive());
  const existing = await domain.tenants.findByTenant(declared.tenant);
  if (existing) return { account: await update(domain, declared, configurations) };

  const apiKey = generateApiKey(domain.apiKeyFormat);
  if (await domain.tenants.reactivate(declared.tenant, hashApiKey(apiKey), actor)) {
    return { account: await update(domain, declared, configurations), apiKey };
  }
  try {
    await domain.tenants.create({
      accountUuid: randomUUID(),
      tenant: declared.tenant,
      name: declared.name,
      email: declared.email ?? null,
      passwordHash: null,
      isIssuer: declared.isIssuer,
      isVerifier: declared.isVerifier,
      status: "APPROVED",
      apiKeyHash: hashApiKey(apiKey),
      credentialConfigurations: configurations,
    });
  } catch (error) {
    // Created concurrently by another reconcile: converge on the update path.
    if (error instanceof DuplicateTenantError && error.field === "tenant") {
      return { account: await update(domain, declared, configurations) };
    }
    throw toConflict(error, declared);
  }
  const account = await domain.tenants.findByTenant(declared.tenant);
  if (!account) throw new Error(`tenant ${declared.tenant} vanished after creation`);
  return { account, apiKey };
}

async function update(
  domain: Pick<TrustRegistryDependencies, "tenants">,
  declared: DeclaredTenant,
  configurations: ReturnType<typeof provisionCredentialConfigurations>,
): Promise<TenantAccount> {
  await domain.tenants.updateProfile(declared.tenant, {
    name: declared.name,
    isIssuer: declared.isIssuer,
    isVerifier: declared.isVerifier,
  });
  await domain.tenants.approve(declared.tenant);
  await domain.tenants.addCredentialConfigurations(declared.tenant, configurations);
  const account = await domain.tenants.findByTenant(declared.tenant);
  if (!account) throw new Error(`tenant ${declared.tenant} vanished during update`);
  return account;
}
