/**
 * API-key routes: the preHandler and the tenant it vouches for. How a key is checked is the
 * `ApiKeyAuthenticator` a service is given (`@attesto/tenant-client` asks the trust registry).
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { type CacheScope, cacheScopeOf } from "../cache/loading-cache.js";
import { AppError, forbidden, unauthorized } from "../errors/app-error.js";
import { answering } from "./openapi.js";

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

export type TenantRole = "issuer" | "verifier";

export interface ApiKeyAuthenticator {
  /** `scope`: the request's cache scope (`cacheScopeOf`), so its cached reads share one barrier. */
  authenticate(apiKey: string, scope?: CacheScope): Promise<AuthenticatedTenant>;
}

/**
 * preHandler for API-key routes (the trust-registry README): 401 `API Key is required` / `Invalid API Key` /
 * `Account is not approved`, 403 `Forbidden` when the tenant lacks `role`.
 */
export function requireApiKey(authenticator: ApiKeyAuthenticator, role?: TenantRole): preHandlerAsyncHookHandler {
  // Documented on every route that uses it: 401 without a valid key, 403 without the role.
  return answering(
    async (request: FastifyRequest) => {
      const header = request.headers["x-api-key"];
      const apiKey = Array.isArray(header) ? undefined : header?.trim();
      if (Array.isArray(header)) throw unauthorized("Invalid API Key");
      if (!apiKey) throw unauthorized("API Key is required");
      const tenant = await authenticator.authenticate(apiKey, cacheScopeOf(request));
      if (role === "issuer" && !tenant.isIssuer) throw forbidden("Forbidden");
      if (role === "verifier" && !tenant.isVerifier) throw forbidden("Forbidden");
      request.apiTenant = tenant;
    },
    role ? [401, 403, 503] : [401, 503],
  );
}

/** The tenant of an API-key route (after `requireApiKey`). */
export function apiTenantOf(request: FastifyRequest): AuthenticatedTenant {
  if (!request.apiTenant) throw new AppError(500, "server_error", "route is missing requireApiKey");
  return request.apiTenant;
}
