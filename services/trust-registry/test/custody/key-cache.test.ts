import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_KEY_CACHE_TTL_MS, KeyCache } from "../../src/custody/key-cache.js";

const key = (): KeyObject => generateKeyPairSync("ed25519").privateKey;

function manualClock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("KeyCache (decrypted custody keys)", () => {
  it("answers a stored key until its TTL has passed, then forgets it", () => {
    const clock = manualClock();
    const cache = new KeyCache<KeyObject>({ capacity: 10, ttlMs: 60_000, now: clock.now });
    const stored = key();
    cache.set("k1", stored);
    clock.advance(59_999);
    expect(cache.get("k1")).toBe(stored);
    clock.advance(1);
    expect(cache.get("k1")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("does not extend an entry's life by reading it", () => {
    const clock = manualClock();
    const cache = new KeyCache<KeyObject>({ capacity: 10, ttlMs: 1000, now: clock.now });
    cache.set("k1", key());
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      expect(cache.get("k1")).toBeDefined();
    }
    clock.advance(100);
    expect(cache.get("k1")).toBeUndefined();
  });

  it("keeps at most `capacity` keys, dropping the least recently used", () => {
    const cache = new KeyCache<KeyObject>({ capacity: 2 });
    const [a, b, c] = [key(), key(), key()];
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a")).toBe(a); // b is now the least recently used
    cache.set("c", c);
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(a);
    expect(cache.get("c")).toBe(c);
  });

  it("serves a replaced key, never the one it replaced", () => {
    const cache = new KeyCache<KeyObject>({ capacity: 2 });
    const [before, after] = [key(), key()];
    cache.set("k", before);
    cache.set("k", after);
    expect(cache.get("k")).toBe(after);
    expect(cache.size).toBe(1);
  });

  it("holds nothing with capacity 0 and defaults to a ten-minute TTL", () => {
    const disabled = new KeyCache<KeyObject>({ capacity: 0 });
    disabled.set("k", key());
    expect(disabled.get("k")).toBeUndefined();
    expect(DEFAULT_KEY_CACHE_TTL_MS).toBe(600_000);
  });
});
