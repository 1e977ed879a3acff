import { hash, verify } from "@node-rs/argon2";
import type { PasswordHasher } from "../domain/ports.js";

/**
 * argon2id (the library's default algorithm) with the OWASP minimum: 19 MiB, 2 passes, 1 lane,
 * as the trust registry hashes organization passwords.
 */
export const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function createArgon2PasswordHasher(): PasswordHasher {
  return {
    hash: (password) => hash(password, ARGON2_OPTIONS),
    async verify(passwordHash, password) {
      try {
        return await verify(passwordHash, password);
      } catch {
        return false;
      }
    },
  };
}
