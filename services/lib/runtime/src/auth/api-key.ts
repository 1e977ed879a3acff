import { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { AppError, forbidden, unauthorized } from "../errors.js";
import { fromRpcError } from "../rpc/error-mapping.js";

/** The tenant an API key belongs to, as the trust registry vouches for it. */
export interface AuthenticatedTenant {
  accountUuid: string;
  tenant: string;
  name: string;
  isIssuer: boolean;
  isVerifier: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireApiKey` on routes that need an API key. */
    apiTenant?: AuthenticatedTenant;
  }
}

export type TenantClient = Client<typeof tenantV1.TenantService>;
export type TenantRole = "issuer" | "verifier";

export interface ApiKeyAuthenticator {
  authenticate(apiKey: string): Promise<AuthenticatedTenant>;
}

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

/**
 * preHandler for API-key routes (the trust-registry README): 401 `API Key is required` / `Invalid API Key` /
 * `Account is not approved`, 403 `Forbidden` when the tenant lacks `role`.
 */
export function requireApiKey(authenticator: ApiKeyAuthenticator, role?: TenantRole): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const header = request.headers["x-api-key"];
    const apiKey = Array.isArray(header) ? undefined : header?.trim();
    if (Array.isArray(header)) throw unauthorized("Invalid API Key");
    if (!apiKey) throw unauthorized("API Key is required");
    const tenant = await authenticator.authenticate(apiKey);
    if (role === "issuer" && !tenant.isIssuer) throw forbidden("Forbidden");
    if (role === "verifier" && !tenant.isVerifier) throw forbidden("Forbidden");
    request.apiTenant = tenant;
  };
}

/** The tenant of an API-key route (after `requireApiKey`). */
export function apiTenantOf(request: FastifyRequest): AuthenticatedTenant {
  if (!request.apiTenant) throw new AppError(500, "server_error", "route is missing requireApiKey");
  return request.apiTenant;
}
