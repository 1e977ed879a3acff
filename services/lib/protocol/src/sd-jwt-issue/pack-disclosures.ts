import { hash } from "node:crypto";
import type { DisclosureFrame } from "./create-disclosure-frame.js";

/** base64url (no padding) of the UTF-8 bytes of `text`. */
export const base64urlOfText = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/**
 * A disclosure's digest in the issuer-signed JWT (`_sd_alg: sha-256`): base64url of SHA-256 over its
 * ASCII, with node:crypto's one-shot `hash` (no Hash object per disclosure).
 */
const digestOf = (disclosure: string) => hash("sha256", disclosure, "base64url");

/** A disclosure (RFC 9901 §4.2.1/§4.2.2): base64url of the JSON array `[salt, name, value]` or `[salt, value]`. */
function disclose(item: unknown[], disclosures: string[]): string {
  const disclosure = base64urlOfText(JSON.stringify(item));
  disclosures.push(disclosure);
  return digestOf(disclosure);
}

/**
 * `claims` with what `frame` makes disclosable replaced by digests (RFC 9901 §4.2), the
 * disclosures appended to `disclosures`: the algorithm of @sd-jwt/core's `pack` (0.19, which
 * issued Attesto's SD-JWT VCs before), without decoys, synchronously and with Buffer's base64url.
 * The same order throughout, so the same salts give the same credential byte for byte
 * (sd-jwt-issue.test.ts): the disclosures of a level's nested frames first, in the frame's key
 * order, then that level's own in the claims' key order; an object's `_sd` digests sorted, after
 * its undisclosed members; an array's disclosable elements as `{"...": digest}` in place.
 */
export function packDisclosures(
  claims: unknown,
  frame: DisclosureFrame | undefined,
  salt: () => string,
  disclosures: string[],
): unknown {
  if (!frame) return claims;
  const sd = frame._sd ?? [];
  const nested = new Map<string, unknown>();
  if (Array.isArray(claims)) {
    for (const key in frame) {
      if (key === "_sd") continue;
      const index = Number.parseInt(key, 10);
      nested.set(String(index), packDisclosures(claims[index], frame[key] as DisclosureFrame, salt, disclosures));
    }
    return claims.map((item: unknown, index) => {
      const claim = nested.get(String(index)) || item;
      return sd.includes(index) ? { "...": disclose([salt(), claim], disclosures) } : claim;
    });
  }
  const object = claims as Record<string, unknown>;
  for (const key in frame) {
    if (key === "_sd") continue;
    nested.set(key, packDisclosures(object[key], frame[key] as DisclosureFrame, salt, disclosures));
  }
  const packed: Record<string, unknown> = {};
  const digests: string[] = [];
  for (const key in object) {
    const claim = nested.get(key) || object[key];
    if (sd.includes(key)) digests.push(disclose([salt(), key, claim], disclosures));
    else packed[key] = claim;
  }
  if (digests.length > 0) packed._sd = digests.sort();
  return packed;
}
