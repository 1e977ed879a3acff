import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { describe, expect, it, vi } from "vitest";
import { isPreAuthorizedCodeContext, preAuthorizedCodeContext } from "../src/domain/offer.js";
import { rememberRecentSeals } from "../src/domain/recent-seals.js";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

function sealers(size = 4) {
  const inner = createEnvelopeSealer([{ id: "k1", key: new Uint8Array(32).fill(7) }]);
  const open = vi.spyOn(inner, "open");
  const sealer = rememberRecentSeals(inner, { remembers: isPreAuthorizedCodeContext, size });
  return { inner, open, sealer };
}

describe("rememberRecentSeals", () => {
  it("opens a code it sealed once without decrypting, then through the sealer", () => {
    const { inner, open, sealer } = sealers();
    const context = preAuthorizedCodeContext("offer-1");
    const envelope = sealer.seal(bytes("code-1"), context);
    // The envelope is the real one: any replica opens it.
    expect(text(inner.open(envelope, context))).toBe("code-1");
    open.mockClear();
    expect(text(sealer.open(envelope, context))).toBe("code-1");
    expect(open).not.toHaveBeenCalled();
    expect(text(sealer.open(envelope, context))).toBe("code-1");
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("keeps the envelope's guarantees: another context, a tampered or unknown envelope go to the sealer", () => {
    const { inner, open, sealer } = sealers();
    const context = preAuthorizedCodeContext("offer-1");
    const envelope = sealer.seal(bytes("code-1"), context);
    expect(() => sealer.open(envelope, preAuthorizedCodeContext("offer-2"))).toThrow();
    const at = envelope.length - 10;
    const tampered = `${envelope.slice(0, at)}${envelope[at] === "A" ? "B" : "A"}${envelope.slice(at + 1)}`;
    expect(() => sealer.open(tampered, context)).toThrow();
    const elsewhere = inner.seal(bytes("code-2"), preAuthorizedCodeContext("offer-3"));
    expect(text(sealer.open(elsewhere, preAuthorizedCodeContext("offer-3")))).toBe("code-2");
    expect(open).toHaveBeenCalledTimes(3);
  });

  it("remembers only the contexts it is told to, and at most `size`, the oldest dropped first", () => {
    const { open, sealer } = sealers(2);
    const key = sealer.seal(bytes("private"), "issuer-key:acme:thumb");
    expect(text(sealer.open(key, "issuer-key:acme:thumb"))).toBe("private");
    expect(open).toHaveBeenCalledTimes(1);
    const envelopes = ["a", "b", "c"].map((id) => sealer.seal(bytes(id), preAuthorizedCodeContext(id)));
    open.mockClear();
    expect(text(sealer.open(envelopes[2]!, preAuthorizedCodeContext("c")))).toBe("c");
    expect(text(sealer.open(envelopes[1]!, preAuthorizedCodeContext("b")))).toBe("b");
    expect(open).not.toHaveBeenCalled();
    expect(text(sealer.open(envelopes[0]!, preAuthorizedCodeContext("a")))).toBe("a");
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("hands out its own copy: changing the sealed input afterwards changes nothing", () => {
    const { sealer } = sealers();
    const input = bytes("code-1");
    const envelope = sealer.seal(input, preAuthorizedCodeContext("offer-1"));
    input.fill(0);
    expect(text(sealer.open(envelope, preAuthorizedCodeContext("offer-1")))).toBe("code-1");
  });
});
