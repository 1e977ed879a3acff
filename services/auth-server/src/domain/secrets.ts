import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh unguessable value (256 bits, base64url): request_uri handles, codes, CSRF tokens, session ids. */
export const randomSecret = (): string => randomBytes(32).toString("base64url");

/** How secrets are stored: SHA-256, lowercase hex. The secret itself is never stored. */
export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex");

/** Whether `value` hashes to `expectedHash`, in constant time. */
export function matchesHash(value: string, expectedHash: string): boolean {
  const given = Buffer.from(sha256Hex(value), "hex");
  const expected = Buffer.from(expectedHash, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
