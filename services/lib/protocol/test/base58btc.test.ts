import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base58btcDecode as decodeBase58, base58btcEncode as encodeBase58 } from "../src/did/base58btc.js";

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));

describe("base58btc", () => {
  it("matches the draft-msporny-base58 test vectors", () => {
    expect(encodeBase58(new TextEncoder().encode("Hello World!"))).toBe("2NEpo7TZRRrLZSi2U");
    expect(encodeBase58(new TextEncoder().encode("The quick brown fox jumps over the lazy dog."))).toBe(
      "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z",
    );
    expect(encodeBase58(bytes("0000287fb4cd"))).toBe("11233QC4");
  });

  it("round-trips random values, leading zero bytes included", () => {
    for (let i = 0; i < 200; i++) {
      const value = randomBytes(16);
      if (i % 10 === 0) value[0] = 0;
      expect(decodeBase58(encodeBase58(value))).toEqual(new Uint8Array(value));
    }
    expect(encodeBase58(new Uint8Array())).toBe("");
  });

  it("refuses characters outside the alphabet", () => {
    expect(decodeBase58("0OIl")).toBeUndefined();
    expect(decodeBase58("abc+")).toBeUndefined();
  });
});
