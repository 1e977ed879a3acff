import { describe, expect, it } from "vitest";
import { CNonceError, createCNonces } from "../src/index.js";

const SECRET = "c-nonce-test-secret-0123456789abcdef";

describe("c_nonce", () => {
  it("creates opaque nonces that verify until they expire, without any state", () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const nonces = createCNonces({ secret: SECRET, ttlSeconds: 300, now: () => now });
    const nonce = nonces.create();
    expect(nonce.value).toMatch(/^[A-Za-z0-9_-]{71}$/);
    expect(nonce.expiresAt.toISOString()).toBe("2026-01-01T00:05:00.000Z");
    expect(nonces.create().value).not.toBe(nonce.value);
    // Another instance with the same secret (another replica) accepts it.
    const replica = createCNonces({ secret: SECRET, now: () => now });
    expect(replica.verify(nonce.value)).toEqual({ expiresAt: nonce.expiresAt });
    now += 299_000;
    expect(nonces.verify(nonce.value).expiresAt).toEqual(nonce.expiresAt);
    now += 1_000;
    expect(() => nonces.verify(nonce.value)).toThrow(new CNonceError("expired", "nonce has expired"));
  });

  it("refuses nonces of another secret, tampered and malformed values", () => {
    const nonces = createCNonces({ secret: SECRET });
    const other = createCNonces({ secret: `${SECRET}-other` }).create().value;
    const codeOf = (value: string) => {
      try {
        nonces.verify(value);
        return "accepted";
      } catch (error) {
        return (error as CNonceError).code;
      }
    };
    expect(codeOf(other)).toBe("bad_signature");
    const genuine = nonces.create().value;
    const tampered = `${genuine.slice(0, 10)}${genuine[10] === "A" ? "B" : "A"}${genuine.slice(11)}`;
    expect(codeOf(tampered)).toBe("bad_signature");
    expect(codeOf("")).toBe("malformed");
    expect(codeOf("not a nonce!")).toBe("malformed");
    expect(codeOf(genuine.slice(0, -2))).toBe("malformed");
    expect(codeOf(genuine)).toBe("accepted");
  });

  it("accepts only the canonical spelling (a padding-bit variant would slip past the single-use store)", () => {
    const nonces = createCNonces({ secret: SECRET });
    const genuine = nonces.create().value;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(genuine.at(-1)!);
    // Same data bits, other padding bits: decodes to the same 53 bytes.
    const variants = [1, 2, 3].map((bits) => `${genuine.slice(0, -1)}${alphabet[(last & ~3) | ((last + bits) & 3)]}`);
    for (const variant of variants) {
      expect(Buffer.from(variant, "base64url").equals(Buffer.from(genuine, "base64url"))).toBe(true);
      expect(() => nonces.verify(variant), variant).toThrow("nonce is not a c_nonce of this issuer");
    }
    expect(() => nonces.verify(genuine)).not.toThrow();
  });

  it("requires a long secret and a positive lifetime", () => {
    expect(() => createCNonces({ secret: "short" })).toThrow("at least 32");
    expect(() => createCNonces({ secret: SECRET, ttlSeconds: 0 })).toThrow("positive");
  });
});
