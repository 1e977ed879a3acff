import { createHash } from "node:crypto";

/** The `ath` claim for an access token: base64url(SHA-256(ASCII of the token)) (RFC 9449 §4.2). */
export function computeDpopAth(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest("base64url");
}
