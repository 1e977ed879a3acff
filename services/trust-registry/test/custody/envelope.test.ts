import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  EnvelopeIntegrityError,
  KeyRing,
  openEnvelope,
  rewrapEnvelope,
  sealEnvelope,
  UnknownKeyEncryptionKeyError,
} from "../../src/custody/envelope.js";
import { newKek } from "./custody-test-kit.js";

const kekA = newKek("kek-a");
const kekB = newKek("kek-b");
const owner = { tenant: "acme", keyId: "key-1" };
const secret = randomBytes(48);

const flipByte = (bytes: Uint8Array, index = 0) => {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
};

describe("AES-256-GCM envelope", () => {
  const ring = new KeyRing([kekA]);
  const envelope = sealEnvelope(ring, owner, secret);

  it("round-trips a secret under the current KEK", () => {
    expect(envelope.kekId).toBe("kek-a");
    expect(envelope.iv).toHaveLength(12);
    expect(envelope.tag).toHaveLength(16);
    expect(envelope.wrappedDek).toHaveLength(60);
    expect(Buffer.from(envelope.ciphertext).equals(secret)).toBe(false);
    expect(openEnvelope(ring, owner, envelope).equals(secret)).toBe(true);
  });

  it("uses a fresh DEK and IV for every secret", () => {
    const again = sealEnvelope(ring, owner, secret);
    expect(Buffer.from(again.ciphertext).equals(Buffer.from(envelope.ciphertext))).toBe(false);
    expect(Buffer.from(again.wrappedDek).equals(Buffer.from(envelope.wrappedDek))).toBe(false);
  });

  it.each([
    ["ciphertext", { ciphertext: flipByte(envelope.ciphertext) }],
    ["tag", { tag: flipByte(envelope.tag) }],
    ["iv", { iv: flipByte(envelope.iv) }],
    ["wrapped DEK", { wrappedDek: flipByte(envelope.wrappedDek, 20) }],
    ["wrapped DEK length", { wrappedDek: Buffer.from(envelope.wrappedDek).subarray(1) }],
  ])("detects a tampered %s", (_, change) => {
    expect(() => openEnvelope(ring, owner, { ...envelope, ...change })).toThrow(EnvelopeIntegrityError);
  });

  it.each([
    ["another tenant", { tenant: "other", keyId: "key-1" }],
    ["another key id", { tenant: "acme", keyId: "key-2" }],
    ["a shifted boundary", { tenant: "acm", keyId: "ekey-1" }],
  ])("refuses to open for %s (associated data)", (_, wrongOwner) => {
    expect(() => openEnvelope(ring, wrongOwner, envelope)).toThrow(EnvelopeIntegrityError);
  });

  it("refuses a KEK of the same id but other bytes", () => {
    expect(() => openEnvelope(new KeyRing([newKek("kek-a")]), owner, envelope)).toThrow(EnvelopeIntegrityError);
  });

  it("names an unknown KEK id clearly", () => {
    expect(() => openEnvelope(new KeyRing([kekB]), owner, envelope)).toThrow(UnknownKeyEncryptionKeyError);
    expect(() => openEnvelope(new KeyRing([kekB]), owner, envelope)).toThrow(
      "Key-encryption key 'kek-a' is not configured",
    );
  });

  it("rewraps the DEK under the new current KEK, leaving the ciphertext", () => {
    const rotated = new KeyRing([kekB, kekA]);
    const rewrapped = rewrapEnvelope(rotated, owner, envelope);
    expect(rewrapped.kekId).toBe("kek-b");
    expect(rewrapped.ciphertext).toBe(envelope.ciphertext);
    expect(openEnvelope(new KeyRing([kekB]), owner, rewrapped).equals(secret)).toBe(true);
    expect(rewrapEnvelope(rotated, owner, rewrapped)).toBe(rewrapped);
  });

  it("will not rewrap a tampered envelope", () => {
    const rotated = new KeyRing([kekB, kekA]);
    expect(() => rewrapEnvelope(rotated, owner, { ...envelope, tag: flipByte(envelope.tag) })).toThrow(
      EnvelopeIntegrityError,
    );
  });

  it("validates the key ring", () => {
    expect(() => new KeyRing([])).toThrow(/at least one/);
    expect(() => new KeyRing([{ id: "short", key: new Uint8Array(16) }])).toThrow(/32 bytes/);
    expect(() => new KeyRing([kekA, { ...kekB, id: "kek-a" }])).toThrow(/unique/);
  });
});
