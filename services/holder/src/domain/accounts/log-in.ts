import { tooManyRequests, unauthorized } from "@attesto/runtime/errors";
import type { User } from "../model.js";
import type { HolderDependencies } from "../ports.js";
import {
  clientNetworkOf,
  decideLoginAttempt,
  LOGIN_THROTTLE_POLICY,
  type LoginThrottlePolicy,
} from "./login-throttle.js";

export const INVALID_CREDENTIALS_MESSAGE = "Invalid UUID or password";
export const THROTTLED_MESSAGE = "Too many failed login attempts from this address, try again later";

/** Share of logins that also purge forgotten throttling records. */
const PURGE_PROBABILITY = 0.01;

export interface LoginResult {
  accessToken: string;
  expiresIn: number;
  user: User;
}

/**
 * POST /v1/user/login:
 * 1. throttle: the (account, client network) pair may be waiting after earlier failures -> 429 + Retry-After;
 *    the attempt is counted before the password is checked, so concurrent guesses cannot overrun it;
 * 2. verify the password; an unknown UUID costs the same argon2 verification as a wrong password, so
 *    response times do not tell which accounts exist                      -> 401;
 * 3. success forgets the pair's failures and issues the login token.
 */
export function createLogIn(
  deps: Pick<HolderDependencies, "users" | "passwords" | "tokens" | "loginAttempts" | "now">,
  policy: LoginThrottlePolicy = LOGIN_THROTTLE_POLICY,
) {
  let decoyHash: Promise<string> | undefined;
  const decoy = () => {
    decoyHash ??= deps.passwords.hash("decoy-password-that-never-matches");
    return decoyHash;
  };
  return async function logIn(attempt: { uuid: string; password: string; clientIp: string }): Promise<LoginResult> {
    const accountUuid = attempt.uuid.toLowerCase();
    const key = { accountUuid, client: clientNetworkOf(attempt.clientIp) };
    const now = deps.now();
    const decision = await deps.loginAttempts.claim(key, (current) => decideLoginAttempt(current, now, policy));
    if (!decision.allowed) {
      throw tooManyRequests(THROTTLED_MESSAGE, { headers: { "retry-after": String(decision.retryAfterSeconds) } });
    }
    const user = await deps.users.find(accountUuid);
    const matches = await deps.passwords.verify(user?.passwordHash ?? (await decoy()), attempt.password);
    if (!user || !matches) throw unauthorized(INVALID_CREDENTIALS_MESSAGE);
    await deps.loginAttempts.clear(key);
    if (Math.random() < PURGE_PROBABILITY) {
      await deps.loginAttempts.purge(new Date(now.getTime() - policy.forgetAfterSeconds * 1000));
    }
    return { accessToken: await deps.tokens.issue(user.uuid), expiresIn: deps.tokens.ttlSeconds, user };
  };
}
