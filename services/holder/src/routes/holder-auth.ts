import { AppError } from "@attesto/runtime/errors";
import { type App, answersInScope } from "@attesto/runtime/http";
import type { FastifyRequest } from "fastify";
import { InvalidHolderTokenError } from "../domain/accounts/holder-token.js";
import type { HolderDependencies } from "../domain/ports.js";

const users = new WeakMap<FastifyRequest, string>();

/** 401 `invalid_token` for a missing, malformed, forged or expired login token. */
const invalidToken = (message: string, cause?: unknown) =>
  new AppError(401, "invalid_token", message, {
    cause,
    headers: { "www-authenticate": 'Bearer error="invalid_token"' },
  });

/**
 * A scoped onRequest hook (before body validation: an anonymous caller learns nothing about the
 * body rules): verifies the holder login token and that its account exists. Every route inside
 * sees only that holder's data.
 */
export function requireHolderToken(scope: App, deps: Pick<HolderDependencies, "tokens" | "users">): void {
  answersInScope(scope, [401]);
  scope.addHook("onRequest", async (request) => {
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(request.headers.authorization ?? "");
    if (!match?.[1]) throw invalidToken("Bearer access token is required");
    let userUuid: string;
    try {
      userUuid = await deps.tokens.verify(match[1]);
    } catch (error) {
      if (error instanceof InvalidHolderTokenError) throw invalidToken(error.message, error);
      throw error;
    }
    if (!(await deps.users.find(userUuid))) throw invalidToken("Access token is invalid");
    users.set(request, userUuid);
  });
}

/** The holder the request's token was issued to (inside requireHolderToken's scope only). */
export function userOf(request: FastifyRequest): string {
  const user = users.get(request);
  if (!user) throw new Error("route is not protected by requireHolderToken");
  return user;
}
