import { notFound } from "@attesto/runtime/errors";
import { type ApiKeyFormat, generateApiKey, hashApiKey } from "./api-key.js";
import type { TenantRepository } from "./ports.js";

/**
 * Operator action for a leaked or lost key (this service's README): revokes every key of the tenant and
 * returns a new one, shown once.
 */
export async function replaceApiKey(
  dependencies: { tenants: TenantRepository; apiKeyFormat: ApiKeyFormat },
  tenant: string,
): Promise<string> {
  const apiKey = generateApiKey(dependencies.apiKeyFormat);
  const replaced = await dependencies.tenants.replaceApiKeys(tenant.toLowerCase(), hashApiKey(apiKey));
  if (!replaced) throw notFound("Tenant not found");
  return apiKey;
}
