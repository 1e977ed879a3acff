import { type App, type RateLimitCounter, rateLimit } from "@attesto/runtime/http";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { createLogIn } from "../domain/log-in.js";
import type { TrustRegistryDependencies } from "../domain/ports.js";
import { zAccountUuid, zOrganizationPassword } from "../domain/z-tenant-fields.js";

/**
 * 5 attempts per 60 s per UUID, counted before validation and before the password is
 * checked, so a 6th attempt is refused even with the right password.
 */
export const LOGIN_RATE_LIMIT = { name: "login", max: 5, windowSeconds: 60 } as const;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The attempted account: the body's uuid when it looks like one (other values are refused as 400). */
function attemptedAccount(request: FastifyRequest): string | undefined {
  const uuid = (request.body as { uuid?: unknown } | undefined)?.uuid;
  if (typeof uuid !== "string") return undefined;
  const normalized = uuid.toLowerCase();
  return UUID_SHAPE.test(normalized) ? normalized : undefined;
}

const zLogInBody = z.object({ uuid: zAccountUuid, password: zOrganizationPassword });

const zLogInResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
});

/** POST /v1/auth/login: organization login with the account UUID and password. */
export function registerLogInRoute(app: App, domain: TrustRegistryDependencies, counter: RateLimitCounter): void {
  const logIn = createLogIn(domain);
  app.post(
    "/v1/auth/login",
    {
      schema: { body: zLogInBody, response: { 200: zLogInResponse } },
      config: { answers: [401, 429] },
      preValidation: rateLimit(counter, {
        ...LOGIN_RATE_LIMIT,
        key: attemptedAccount,
        message: "Too many login attempts, try again later",
      }),
    },
    async (request, reply) => {
      const result = await logIn({ accountUuid: request.body.uuid, password: request.body.password });
      reply.header("cache-control", "no-store");
      return { access_token: result.accessToken, token_type: "Bearer" as const, expires_in: result.expiresIn };
    },
  );
}
