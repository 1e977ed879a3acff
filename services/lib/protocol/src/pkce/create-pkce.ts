import { randomBytes } from "node:crypto";
import { computeS256CodeChallenge, PKCE_S256 } from "./compute-s256-code-challenge.js";

export interface Pkce {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: typeof PKCE_S256;
}

/** A fresh PKCE pair as a client makes it: a 43-character verifier (32 random bytes) and its S256 challenge. */
export function createPkce(codeVerifier: string = randomBytes(32).toString("base64url")): Pkce {
  return { codeVerifier, codeChallenge: computeS256CodeChallenge(codeVerifier), codeChallengeMethod: PKCE_S256 };
}
