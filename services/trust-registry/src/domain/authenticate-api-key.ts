import { type ApiKeyFormat, apiKeyHashesMatch, hashApiKey, isWellFormedApiKey } from "./api-key.js";
import type { TenantRepository } from "./ports.js";
import type { TenantAccount } from "./tenant.js";

/** Why a key is or is not accepted; callers answer with the messages in this service's README. */
export type ApiKeyAuthentication =
  | { outcome: "valid"; account: TenantAccount }
  | { outcome: "not_approved"; account: TenantAccount }
  | { outcome: "invalid" };

/**
 * Resolves an X-API-Key value: malformed or unknown => invalid; found by its SHA-256 and the
 * hashes compared in constant time; a PENDING account => not_approved.
 */
export async function authenticateApiKey(
  dependencies: { tenants: TenantRepository; apiKeyFormat: ApiKeyFormat },
  presentedKey: string,
): Promise<ApiKeyAuthentication> {
  if (!isWellFormedApiKey(presentedKey, dependencies.apiKeyFormat)) return { outcome: "invalid" };
  const presentedHash = hashApiKey(presentedKey);
  const found = await dependencies.tenants.findByApiKeyHash(presentedHash);
  if (!found || !apiKeyHashesMatch(presentedHash, found.keyHash)) return { outcome: "invalid" };
  if (found.account.status !== "APPROVED") return { outcome: "not_approved", account: found.account };
  return { outcome: "valid", account: found.account };
}
