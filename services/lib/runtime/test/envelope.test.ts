import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createEnvelopeSealer, EnvelopeError, keyEncryptionKeysSchema } from "../src/index.js";

const kek = (id: string) => ({ id, key: new Uint8Array(randomBytes(32)) });

describe("envelope encryption", () => {
  const a = kek("a");
  const b = kek("b");

  it("seals and opens, never showing the plaintext", () => {
    const sealer = createEnvelopeSealer([a]);
    const secret = Buffer.from("ed25519-seed-very-secret");
    const envelope = sealer.seal(secret, "tenant:acme/key:1");
    expect(envelope).toMatch(/^v1\.a\./);
    expect(envelope).not.toContain(secret.toString("base64url"));
    expect(Buffer.from(sealer.open(envelope, "tenant:acme/key:1")).toString()).toBe("ed25519-seed-very-secret");
  });

  it("refuses a different context, tampering and unknown keys", () => {
    const sealer = createEnvelopeSealer([a]);
    const envelope = sealer.seal(Buffer.from("x"), "ctx");
    expect(() => sealer.open(envelope, "other")).toThrow(EnvelopeError);
    const parts = envelope.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[body.length - 1]! ^= 1;
    parts[3] = body.toString("base64url");
    expect(() => sealer.open(parts.join("."), "ctx")).toThrow("cannot be opened");
    expect(() => createEnvelopeSealer([b]).open(envelope, "ctx")).toThrow("'a' is not configured");
  });

  it("rotates: new envelopes use the first key, old ones still open", () => {
    const old = createEnvelopeSealer([a]).seal(Buffer.from("x"), "c");
    const rotated = createEnvelopeSealer([b, a]);
    expect(rotated.keyIdOf(rotated.seal(Buffer.from("y"), "c"))).toBe("b");
    expect(Buffer.from(rotated.open(old, "c")).toString()).toBe("x");
  });

  it("parses KEY_ENCRYPTION_KEYS", () => {
    const value = `k1:${randomBytes(32).toString("base64url")},k2:${randomBytes(32).toString("base64url")}`;
    expect(keyEncryptionKeysSchema.parse(value).map((k) => k.id)).toEqual(["k1", "k2"]);
    expect(keyEncryptionKeysSchema.safeParse("k1:short").success).toBe(false);
    expect(
      keyEncryptionKeysSchema.safeParse(
        `k1:${randomBytes(32).toString("base64url")},k1:${randomBytes(32).toString("base64url")}`,
      ).success,
    ).toBe(false);
  });
});
