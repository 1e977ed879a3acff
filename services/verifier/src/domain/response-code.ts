import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Same-device `response_code` (OID4VP 1.0 §8.2): handed to the wallet in the redirect_uri that
 * answers its direct_post, and required by the result endpoint when the relying party passes it,
 * so only the browser the wallet came back to can claim the session's result. 32 random bytes,
 * base64url; stored as its SHA-256 only, compared in constant time, consumed on first use.
 */
export const createResponseCode = (): string => randomBytes(32).toString("base64url");

/** The at-rest form of a response code: SHA-256, base64url. */
export const hashResponseCode = (code: string): string => createHash("sha256").update(code, "utf8").digest("base64url");

/** Whether `code` is the one whose hash is stored, compared in constant time over the hashes. */
export function responseCodeMatches(code: string, storedHash: string | undefined): boolean {
  if (storedHash === undefined) return false;
  const given = Buffer.from(hashResponseCode(code), "utf8");
  const stored = Buffer.from(storedHash, "utf8");
  return given.length === stored.length && timingSafeEqual(given, stored);
}
