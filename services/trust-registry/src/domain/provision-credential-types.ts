import { provisionCredentialConfigurations } from "./apply-for-tenant.js";
import type { TrustRegistryDependencies } from "./ports.js";

/**
 * TenantService.ProvisionCredentialTypes (after `attesto types add`): every active tenant gets a
 * configuration for each active credential type it does not have yet, as a new tenant would at
 * creation. Existing configurations are kept; answers how many were added (idempotent: 0 again).
 */
export async function provisionCredentialTypes(
  domain: Pick<TrustRegistryDependencies, "tenants" | "credentialTypes">,
): Promise<number> {
  const configurations = provisionCredentialConfigurations(await domain.credentialTypes.listActive());
  return domain.tenants.addCredentialConfigurationsToAll(configurations);
}
