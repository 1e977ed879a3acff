import { createHash } from "node:crypto";

export { fromHex, toHex } from "@attesto/protocol";

/** SHA-256 over the concatenation of `parts`. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** Lowercase hex of a SHA-256 digest: 64 characters. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export const isSha256Hex = (value: string): boolean => SHA256_HEX.test(value);

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
