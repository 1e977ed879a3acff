import { describe, expect, it } from "vitest";
import { createDpopNonces } from "../src/dpop/index.js";

const SECRET = "k".repeat(32);
const START = new Date("2026-11-20T10:00:00Z");

function clock() {
  let now = START.getTime();
  return { now: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
}

describe("createDpopNonces", () => {
  it("issues nonces it verifies, usable as a header value (no spaces, quotes or backslashes)", () => {
    const nonces = createDpopNonces({ secret: SECRET });
    const nonce = nonces.issue();
    expect(nonce).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
    expect(nonces.verify(nonce)).toBe(true);
    expect(nonces.lifetimeSeconds).toBe(300);
  });

  it("issues a different nonce every time", () => {
    const nonces = createDpopNonces({ secret: SECRET });
    expect(new Set(Array.from({ length: 50 }, () => nonces.issue())).size).toBe(50);
  });

  it("is stateless: another instance with the same secret accepts the nonce", () => {
    const nonce = createDpopNonces({ secret: SECRET }).issue();
    expect(createDpopNonces({ secret: new TextEncoder().encode(SECRET) }).verify(nonce)).toBe(true);
  });

  it("expires nonces after the lifetime (300 s by default)", () => {
    const time = clock();
    const nonces = createDpopNonces({ secret: SECRET, now: time.now });
    const nonce = nonces.issue();
    time.advance(299);
    expect(nonces.verify(nonce)).toBe(true);
    time.advance(1);
    expect(nonces.verify(nonce)).toBe(false);
  });

  it("honours a configured lifetime, and refuses nonces that outlive a shortened one", () => {
    const time = clock();
    const short = createDpopNonces({ secret: SECRET, lifetimeSeconds: 10, now: time.now });
    const long = createDpopNonces({ secret: SECRET, lifetimeSeconds: 600, now: time.now });
    expect(short.verify(long.issue())).toBe(false);
    const nonce = short.issue();
    time.advance(10);
    expect(short.verify(nonce)).toBe(false);
  });

  it("refuses nonces from another secret, tampered nonces and garbage", () => {
    const nonces = createDpopNonces({ secret: SECRET });
    expect(nonces.verify(createDpopNonces({ secret: "x".repeat(32) }).issue())).toBe(false);
    const [expiry, salt, mac] = nonces.issue().split(".") as [string, string, string];
    const later = (Number.parseInt(expiry, 36) + 100).toString(36);
    expect(nonces.verify(`${later}.${salt}.${mac}`)).toBe(false);
    // Every other last character: a different MAC, or the same bytes spelled non-canonically.
    for (const last of "AEIMQUYcgkosw048BFJN") {
      if (!mac.endsWith(last)) expect(nonces.verify(`${expiry}.${salt}.${mac.slice(0, -1)}${last}`), last).toBe(false);
    }
    for (const garbage of ["", "abc", "a.b.c", `${expiry}.${salt}`, `${expiry}.${salt}.${mac}.x`]) {
      expect(nonces.verify(garbage), garbage).toBe(false);
    }
    expect(nonces.verify(undefined as unknown as string)).toBe(false);
  });

  it("refuses a secret shorter than 32 bytes", () => {
    expect(() => createDpopNonces({ secret: "short" })).toThrow("at least 32 bytes");
  });
});
