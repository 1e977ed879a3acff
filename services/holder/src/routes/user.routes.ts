import type { App } from "@attesto/runtime/http";
import { z } from "zod";
import { createLogIn } from "../domain/accounts/log-in.js";
import { registerUser } from "../domain/accounts/register-user.js";
import type { HolderDependencies } from "../domain/ports.js";

/** The interface rules for login tokens and limits (see the README). */
export const PASSWORD_MIN_LENGTH = 8;
/** Bounds the argon2 input; far beyond any real password. */
export const PASSWORD_MAX_LENGTH = 1024;
export const NAME_MAX_LENGTH = 100;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

const zRegisterBody = z.object({
  password: requiredString("password")
    .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
  name: z
    .string({ error: "name must be a string" })
    .max(NAME_MAX_LENGTH, `name must be at most ${NAME_MAX_LENGTH} characters`)
    .nullish()
    .transform((value) => value ?? undefined),
});

const zRegistered = z.object({ uuid: z.string(), name: z.string().nullable(), created_at: z.string() });

const zLogInBody = z.object({
  uuid: requiredString("uuid").regex(UUID_V4, "uuid must be a UUID v4"),
  password: requiredString("password")
    .min(1, "password is required")
    .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
});

const zLoggedIn = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  user: z.object({ uuid: z.string(), name: z.string().nullable() }),
});

/**
 * POST /v1/user/register and POST /v1/user/login (public). Failed logins are throttled per
 * (account, client address) with growing delays (domain/accounts/login-throttle.ts), never by
 * locking the account.
 */
export function registerUserRoutes(app: App, deps: HolderDependencies): void {
  app.post(
    "/v1/user/register",
    { schema: { body: zRegisterBody, response: { 201: zRegistered } } },
    async (request, reply) => {
      const user = await registerUser(deps, { password: request.body.password, name: request.body.name });
      reply.code(201);
      return { uuid: user.uuid, name: user.name, created_at: user.createdAt.toISOString() };
    },
  );

  const logIn = createLogIn(deps);
  app.post(
    "/v1/user/login",
    { schema: { body: zLogInBody, response: { 200: zLoggedIn } }, config: { answers: [401, 429] } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const result = await logIn({ uuid: request.body.uuid, password: request.body.password, clientIp: request.ip });
      return {
        access_token: result.accessToken,
        token_type: "Bearer" as const,
        expires_in: result.expiresIn,
        user: { uuid: result.user.uuid, name: result.user.name },
      };
    },
  );
}
