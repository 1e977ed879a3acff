import { hash, verify } from "@node-rs/argon2";

/**
 * argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane). The algorithm is the library's
 * default, argon2id (its `Algorithm` is a const enum that isolated modules cannot reference);
 * the stored PHC string names it (`$argon2id$v=19$m=19456,t=2,p=1$...`).
 */
export const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** Hashes passwords as PHC strings; `verify` answers false (never throws) for a malformed hash. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
}

/** The platform's password hasher (trust registry organizations, holder accounts). */
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
