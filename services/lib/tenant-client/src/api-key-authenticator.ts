import { createHash } from "node:crypto";
import { tenantV1 } from "@attesto/proto";
import { type CacheInvalidations, createCoherentCache, NO_INVALIDATIONS } from "@attesto/runtime/cache";
import { unauthorized } from "@attesto/runtime/errors";
import type { ApiKeyAuthenticator, AuthenticatedTenant } from "@attesto/runtime/http";
import { fromRpcError } from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";

/** A client of the trust registry's TenantService (the contract in proto/attesto/tenant/v1). */
export type TenantClient = Client<typeof tenantV1.TenantService>;

/**
 * The trust registry's cache topics: its tables notify them on every committed change (its
 * migration 0007), for the caches other services keep of what it answers.
 */
export const TRUST_REGISTRY_TOPICS = {
  tenants: "trust-registry.tenants",
  apiKeys: "trust-registry.api-keys",
  credentialConfigurations: "trust-registry.credential-configurations",
  dids: "trust-registry.dids",
} as const;

/** API keys whose answer is remembered at once (the least recently used goes first). */
const CACHED_API_KEYS = 10_000;

type Answer = { approved: true; tenant: AuthenticatedTenant } | { approved: false };

/**
 * Authenticates API keys through TenantService.AuthenticateApiKey, answering with the exact
 * interface messages. The trust registry's database is the one place a key is revoked or replaced,
 * and a tenant deactivated or approved: answers are kept in a coherent cache (by the key's SHA-256,
 * never the key) that every committed change of the tenants or their keys empties before the next
 * request is served, on every replica (`createCoherentCache`). Guarantee kept: a revoked key is
 * refused at once everywhere, with no time window (an earlier TTL cache accepted it for up to 5 s).
 * Unknown keys are not remembered: each asks again.
 */
export function createApiKeyAuthenticator(
  tenants: TenantClient,
  invalidations: CacheInvalidations = NO_INVALIDATIONS,
): ApiKeyAuthenticator {
  const answers = createCoherentCache<Answer>({
    invalidations,
    topics: [TRUST_REGISTRY_TOPICS.tenants, TRUST_REGISTRY_TOPICS.apiKeys],
    max: CACHED_API_KEYS,
  });
  const ask = async (apiKey: string): Promise<Answer> => {
    let response: tenantV1.AuthenticateApiKeyResponse;
    try {
      response = await tenants.authenticateApiKey({ apiKey });
    } catch (error) {
      throw fromRpcError(error, "Trust registry");
    }
    if (response.outcome === tenantV1.ApiKeyOutcome.NOT_APPROVED) return { approved: false };
    // Thrown, so not remembered: a key made later is accepted at once.
    if (response.outcome !== tenantV1.ApiKeyOutcome.VALID || !response.tenant) throw unauthorized("Invalid API Key");
    const t = response.tenant;
    return {
      approved: true,
      tenant: {
        accountUuid: t.accountUuid,
        tenant: t.tenant,
        name: t.name,
        isIssuer: t.roles.includes(tenantV1.Role.ISSUER),
        isVerifier: t.roles.includes(tenantV1.Role.VERIFIER),
      },
    };
  };
  return {
    async authenticate(apiKey, scope) {
      const digest = createHash("sha256").update(apiKey, "utf8").digest("hex");
      const answer = await answers.get(digest, () => ask(apiKey), scope);
      if (!answer.approved) throw unauthorized("Account is not approved");
      return answer.tenant;
    },
  };
}
