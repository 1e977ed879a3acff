/** Lowercase hex of bytes. */
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** Decodes lowercase hex; throws on anything else, so a corrupt hash never decodes silently. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) throw new TypeError("expected lowercase hex");
  return new Uint8Array(Buffer.from(hex, "hex"));
}
