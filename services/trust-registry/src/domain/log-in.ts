import { unauthorized } from "@attesto/runtime/errors";
import type { TrustRegistryDependencies } from "./ports.js";

export const INVALID_CREDENTIALS_MESSAGE = "Invalid UUID or password";

export interface LoginResult {
  accessToken: string;
  expiresIn: number;
}

/**
 * `POST /v1/auth/login` (throttling is the route's): verifies the password with argon2id and
 * issues a login token. An unknown UUID costs the same argon2 verification as a wrong password,
 * so response times do not tell which accounts exist.
 */
export function createLogIn(domain: Pick<TrustRegistryDependencies, "tenants" | "passwords" | "loginTokens">) {
  let decoyHash: Promise<string> | undefined;
  const decoy = () => {
    decoyHash ??= domain.passwords.hash("decoy-password-never-matches-A1");
    return decoyHash;
  };

  return async function logIn(credentials: { accountUuid: string; password: string }): Promise<LoginResult> {
    const account = await domain.tenants.findByAccountUuid(credentials.accountUuid.toLowerCase());
    const passwordHash = account?.passwordHash ?? (await decoy());
    const matches = await domain.passwords.verify(passwordHash, credentials.password);
    if (!account?.passwordHash || !matches) throw unauthorized(INVALID_CREDENTIALS_MESSAGE);
    const accessToken = await domain.loginTokens.issue({ accountUuid: account.accountUuid, tenant: account.tenant });
    return { accessToken, expiresIn: domain.loginTokens.ttlSeconds };
  };
}
