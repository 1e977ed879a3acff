import { createHash } from "node:crypto";

/** The only code challenge method Attesto accepts (RFC 7636 §4.2; `plain` is refused). */
export const PKCE_S256 = "S256";

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** base64url(SHA-256(...)) without padding is always 43 characters. */
const S256_CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isPkceCodeVerifier = (value: unknown): value is string =>
  typeof value === "string" && CODE_VERIFIER.test(value);

export const isS256CodeChallenge = (value: unknown): value is string =>
  typeof value === "string" && S256_CODE_CHALLENGE.test(value);

/** `code_challenge` for a verifier: BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2). */
export function computeS256CodeChallenge(codeVerifier: string): string {
  return createHash("sha256").update(codeVerifier, "ascii").digest("base64url");
}
