import { unauthorized } from "@attesto/runtime";
import type { HolderDependencies } from "../dependencies.js";
import type { User } from "../model.js";

export const INVALID_CREDENTIALS_MESSAGE = "Invalid UUID or password";

export interface LoginResult {
  accessToken: string;
  expiresIn: number;
  user: User;
}

/**
 * POST /v1/user/login (throttling is the route's). An unknown UUID costs the same argon2
 * verification as a wrong password, so response times do not tell which accounts exist.
 */
export function createLogIn(deps: Pick<HolderDependencies, "users" | "passwords" | "tokens">) {
  let decoyHash: Promise<string> | undefined;
  const decoy = () => {
    decoyHash ??= deps.passwords.hash("decoy-password-that-never-matches");
    return decoyHash;
  };
  return async function logIn(credentials: { uuid: string; password: string }): Promise<LoginResult> {
    const user = await deps.users.find(credentials.uuid.toLowerCase());
    const matches = await deps.passwords.verify(user?.passwordHash ?? (await decoy()), credentials.password);
    if (!user || !matches) throw unauthorized(INVALID_CREDENTIALS_MESSAGE);
    return { accessToken: await deps.tokens.issue(user.uuid), expiresIn: deps.tokens.ttlSeconds, user };
  };
}
