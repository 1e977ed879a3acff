import { createHash } from "node:crypto";
import { tenantV1 } from "@attesto/proto";
import type { Client } from "@connectrpc/connect";
import type { FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { createLoadingCache } from "../cache/loading-cache.js";
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

const DEFAULT_CACHE_TTL_MS = 5_000;
const MAX_CACHE_ENTRIES = 10_000;

/**
 * Authenticates API keys through TenantService.AuthenticateApiKey, answering with the exact
 * interface messages. Accepted keys are cached briefly (by SHA-256, never the key itself) so a hot
 * path costs no round trip; a replaced key stops working within `cacheTtlMs`.
 */
export function createApiKeyAuthenticator(
  tenants: TenantClient,
  options: { cacheTtlMs?: number } = {},
): ApiKeyAuthenticator {
  const cache = createLoadingCache<AuthenticatedTenant>({
    max: MAX_CACHE_ENTRIES,
    ttlMs: options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS,
  });
  const load = async (apiKey: string): Promise<AuthenticatedTenant> => {
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
  };
  return {
    // Only accepted keys stay cached (a refused load is not kept); keyed by the key's SHA-256.
    authenticate: (apiKey) => cache.get(createHash("sha256").update(apiKey).digest("base64url"), () => load(apiKey)),
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
