import { type App, type RateLimitCounter, rateLimit, rateLimitKey } from "@attesto/runtime";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { createLogIn } from "../domain/accounts/log-in.js";
import { registerUser } from "../domain/accounts/register-user.js";
import type { HolderDependencies } from "../domain/dependencies.js";

/** Spec §2.3 and §8. */
export const PASSWORD_MIN_LENGTH = 8;
/** Bounds the argon2 input; far beyond any real password. */
export const PASSWORD_MAX_LENGTH = 1024;
export const NAME_MAX_LENGTH = 100;

/**
 * Login throttling against password guessing: 5 attempts per 60 s per UUID, counted before the
 * password is checked (so concurrent guesses cannot overrun it); a successful login is refunded, so
 * only failed attempts lock an account out and a holder may log in as often as it likes.
 */
export const LOGIN_RATE_LIMIT = { name: "holder-login", max: 5, windowSeconds: 60 } as const;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The attempted account: the body's uuid when it is a UUID v4 (other values are refused as 400 uncounted). */
function attemptedAccount(request: FastifyRequest): string | undefined {
  const uuid = (request.body as { uuid?: unknown } | undefined)?.uuid;
  return typeof uuid === "string" && UUID_V4.test(uuid) ? uuid.toLowerCase() : undefined;
}

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

const zRegisterBody = z.object(
  {
    password: requiredString("password")
      .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
      .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
    name: z
      .string({ error: "name must be a string" })
      .max(NAME_MAX_LENGTH, `name must be at most ${NAME_MAX_LENGTH} characters`)
      .nullish()
      .transform((value) => value ?? undefined),
  },
  { error: "request body must be a JSON object" },
);

const zRegistered = z.object({ uuid: z.string(), name: z.string().nullable(), created_at: z.string() });

const zLogInBody = z.object(
  {
    uuid: requiredString("uuid").regex(UUID_V4, "uuid must be a UUID v4"),
    password: requiredString("password")
      .min(1, "password is required")
      .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
  },
  { error: "request body must be a JSON object" },
);

const zLoggedIn = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  user: z.object({ uuid: z.string(), name: z.string().nullable() }),
});

/** POST /v1/user/register and POST /v1/user/login (public). */
export function registerUserRoutes(app: App, deps: HolderDependencies, counter: RateLimitCounter): void {
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
    {
      schema: { body: zLogInBody, response: { 200: zLoggedIn } },
      preValidation: rateLimit(counter, {
        ...LOGIN_RATE_LIMIT,
        key: attemptedAccount,
        message: "Too many login attempts, try again later",
      }),
    },
    async (request, reply) => {
      const result = await logIn({ uuid: request.body.uuid, password: request.body.password });
      await counter.refund(rateLimitKey(LOGIN_RATE_LIMIT, request.body.uuid.toLowerCase()));
      reply.header("cache-control", "no-store");
      return {
        access_token: result.accessToken,
        token_type: "Bearer" as const,
        expires_in: result.expiresIn,
        user: { uuid: result.user.uuid, name: result.user.name },
      };
    },
  );
}
