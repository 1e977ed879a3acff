import { AppError, forbidden } from "@attesto/runtime/errors";
import { type App, answersInScope } from "@attesto/runtime/http";
import type { FastifyRequest } from "fastify";
import { InvalidLoginTokenError, type LoginPrincipal } from "../domain/login-token.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";

const principals = new WeakMap<FastifyRequest, LoginPrincipal>();

/** 401 `invalid_token` for a missing, malformed, forged or expired login token. */
const invalidToken = (message: string, cause?: unknown) =>
  new AppError(401, "invalid_token", message, {
    cause,
    headers: { "www-authenticate": 'Bearer error="invalid_token"' },
  });

/**
 * A scoped onRequest hook (it runs before body validation, so an anonymous caller learns nothing
 * about the body rules): verifies the organization login token and checks that its account still
 * exists for the token's tenant and is approved. The tenant of every DID operation comes from here.
 */
export function requireLoginToken(scope: App, domain: TrustRegistryDependencies): void {
  answersInScope(scope, [401, 403]);
  scope.addHook("onRequest", async (request) => {
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(request.headers.authorization ?? "");
    if (!match?.[1]) throw invalidToken("Bearer access token is required");
    let principal: LoginPrincipal;
    try {
      principal = await domain.loginTokens.verify(match[1]);
    } catch (error) {
      if (error instanceof InvalidLoginTokenError) throw invalidToken(error.message, error);
      throw error;
    }
    const account = await domain.tenants.findByAccountUuid(principal.accountUuid);
    if (!account || account.tenant !== principal.tenant) throw invalidToken("Access token is invalid");
    if (account.status !== "APPROVED") throw forbidden("Forbidden");
    principals.set(request, principal);
  });
}

/** The organization the request's login token was issued to (only inside requireLoginToken's scope). */
export function principalOf(request: FastifyRequest): LoginPrincipal {
  const principal = principals.get(request);
  if (!principal) throw new Error("route is not protected by requireLoginToken");
  return principal;
}
