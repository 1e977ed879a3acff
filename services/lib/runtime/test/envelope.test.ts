import { randomBytes } from "node:crypto";
import { createEnvelopeSealer, EnvelopeError, keyEncryptionKeysSchema } from "@attesto/runtime/crypto";
import { describe, expect, it } from "vitest";

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

  it("rewraps under the current key, keeping the ciphertext; the old key is then not needed", () => {
    const old = createEnvelopeSealer([a]).seal(Buffer.from("x"), "c");
    const rotated = createEnvelopeSealer([b, a]);
    const rewrapped = rotated.rewrap(old, "c");
    expect(rotated.keyIdOf(rewrapped)).toBe("b");
    expect(rewrapped.split(".")[3]).toBe(old.split(".")[3]);
    expect(Buffer.from(createEnvelopeSealer([b]).open(rewrapped, "c")).toString()).toBe("x");
    expect(rotated.rewrap(rewrapped, "c")).toBe(rewrapped);
  });

  it("refuses to rewrap an envelope that does not open (wrong context, tampered, wrong key bytes)", () => {
    const old = createEnvelopeSealer([a]).seal(Buffer.from("x"), "c");
    const rotated = createEnvelopeSealer([b, a]);
    expect(() => rotated.rewrap(old, "other")).toThrow("cannot be opened");
    const parts = old.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0]! ^= 1;
    parts[3] = body.toString("base64url");
    expect(() => rotated.rewrap(parts.join("."), "c")).toThrow("cannot be opened");
    expect(() => createEnvelopeSealer([b, kek("a")]).rewrap(old, "c")).toThrow("cannot be opened");
    expect(() => createEnvelopeSealer([b]).rewrap(old, "c")).toThrow("Key-encryption key 'a' is not configured");
  });

  it("refuses malformed envelopes and invalid key lists", () => {
    const sealer = createEnvelopeSealer([a]);
    for (const bad of ["", "v1", "v2.a.x.y", "v1.a.x.y.z", "v1..x.y"]) {
      expect(() => sealer.open(bad, "c")).toThrow("malformed envelope");
    }
    expect(() => createEnvelopeSealer([])).toThrow(/at least one/);
    expect(() => createEnvelopeSealer([{ id: "short", key: new Uint8Array(16) }])).toThrow(/32 bytes/);
    expect(() => createEnvelopeSealer([a, { ...b, id: "a" }])).toThrow(/unique/);
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
