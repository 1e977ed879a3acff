import { tenantV1 } from "@attesto/proto";
import { unauthorized } from "@attesto/runtime/errors";
import type { ApiKeyAuthenticator } from "@attesto/runtime/http";
import { fromRpcError } from "@attesto/runtime/rpc";
import type { Client } from "@connectrpc/connect";

/** A client of the trust registry's TenantService (the contract in proto/attesto/tenant/v1). */
export type TenantClient = Client<typeof tenantV1.TenantService>;

/**
 * Authenticates API keys through TenantService.AuthenticateApiKey, answering with the exact
 * interface messages. Every request asks the trust registry, whose database is the one place a
 * key is revoked or replaced: no service keeps accepting a key after it was revoked, on any
 * replica (an earlier in-process cache kept accepting it for up to 5 s). The lookup is one
 * multiplexed internal call and one indexed query by the key's SHA-256.
 */
export function createApiKeyAuthenticator(tenants: TenantClient): ApiKeyAuthenticator {
  return {
    async authenticate(apiKey) {
      let response: tenantV1.AuthenticateApiKeyResponse;
      try {
        response = await tenants.authenticateApiKey({ apiKey });
      } catch (error) {
        throw fromRpcError(error, "Trust registry");
      }
      if (response.outcome === tenantV1.ApiKeyOutcome.NOT_APPROVED) throw unauthorized("Account is not approved");
      if (response.outcome !== tenantV1.ApiKeyOutcome.VALID || !response.tenant) throw unauthorized("Invalid API Key");
      const t = response.tenant;
      return {
        accountUuid: t.accountUuid,
        tenant: t.tenant,
        name: t.name,
        isIssuer: t.roles.includes(tenantV1.Role.ISSUER),
        isVerifier: t.roles.includes(tenantV1.Role.VERIFIER),
      };
    },
  };
}
