import { randomUUID } from "node:crypto";
import type { User } from "../model.js";
import type { HolderDependencies } from "../ports.js";

/** POST /v1/user/register (rules on password and name are the route's): an account with an argon2id hash. */
export async function registerUser(
  deps: Pick<HolderDependencies, "users" | "passwords" | "now">,
  input: { password: string; name: string | undefined },
): Promise<User> {
  const user: User = {
    uuid: randomUUID(),
    name: input.name ?? null,
    passwordHash: await deps.passwords.hash(input.password),
    createdAt: new Date(Math.floor(deps.now().getTime() / 1000) * 1000),
  };
  await deps.users.insert(user);
  return user;
}
