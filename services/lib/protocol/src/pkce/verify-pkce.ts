import { timingSafeEqual } from "node:crypto";
import { computeS256CodeChallenge, isPkceCodeVerifier } from "./compute-s256-code-challenge.js";
import { PkceError } from "./pkce-error.js";

/**
 * Checks a token request's `code_verifier` against the S256 `code_challenge` of its authorization
 * request (RFC 7636 §4.6). Missing, malformed (not 43–128 unreserved characters) and mismatching
 * verifiers are refused, each with its own reason.
 *
 * @throws PkceError
 */
export function verifyPkceS256(options: { codeVerifier: string | undefined; codeChallenge: string }): void {
  const { codeVerifier, codeChallenge } = options;
  if (codeVerifier === undefined || codeVerifier === "") throw new PkceError("missing", "code_verifier is required");
  if (!isPkceCodeVerifier(codeVerifier)) {
    throw new PkceError("malformed", "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~'");
  }
  const derived = Buffer.from(computeS256CodeChallenge(codeVerifier));
  const expected = Buffer.from(codeChallenge);
  if (derived.length !== expected.length || !timingSafeEqual(derived, expected)) {
    throw new PkceError("mismatch", "code_verifier does not match the code_challenge");
  }
}
