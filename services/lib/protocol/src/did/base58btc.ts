import { base58 } from "@scure/base";

/** Bitcoin base58 encoding (base58btc; multibase prefix `z` is added by callers). */
export function base58btcEncode(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

/** Decodes base58btc; undefined on a character outside the alphabet. */
export function base58btcDecode(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}
