import { describe, expect, it } from "vitest";
import { createLoadingCache } from "../src/cache/loading-cache.js";

describe("createLoadingCache", () => {
  const clock = () => {
    let ms = 0; // a clock at 0 (lru-cache's "unset" start) must expire entries too
    return { now: () => ms, advance: (by: number) => (ms += by) };
  };

  it("reuses a value (undefined too) until its TTL passes, then loads again", async () => {
    const time = clock();
    const cache = createLoadingCache<string | undefined>({ max: 10, ttlMs: 100, now: time.now });
    let loads = 0;
    const load = async () => {
      loads += 1;
      return undefined;
    };
    expect(await cache.get("a", load)).toBeUndefined();
    time.advance(100);
    expect(await cache.get("a", load)).toBeUndefined();
    expect(loads).toBe(1);
    time.advance(1);
    await cache.get("a", load);
    expect(loads).toBe(2);
  });

  it("shares one load between concurrent misses of a key", async () => {
    const cache = createLoadingCache<number>({ max: 10, ttlMs: 1_000 });
    let loads = 0;
    let release!: (value: number) => void;
    const load = () => {
      loads += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const both = Promise.all([cache.get("k", load), cache.get("k", load)]);
    release(7);
    expect(await both).toEqual([7, 7]);
    expect(loads).toBe(1);
  });

  it("does not keep a failed load (thrown or rejected): the next call loads again", async () => {
    const cache = createLoadingCache<number>({ max: 10, ttlMs: 1_000 });
    await expect(
      cache.get("k", () => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    await expect(cache.get("k", () => Promise.reject(new Error("async")))).rejects.toThrow("async");
    expect(cache.size).toBe(0);
    expect(await cache.get("k", async () => 3)).toBe(3);
  });

  it("is bounded: the least recently used entry goes first", async () => {
    const cache = createLoadingCache<string>({ max: 2, ttlMs: 60_000 });
    await cache.get("a", async () => "a");
    await cache.get("b", async () => "b");
    await cache.get("a", async () => "reloaded"); // a is now the most recent
    await cache.get("c", async () => "c");
    expect(cache.size).toBe(2);
    expect(await cache.get("a", async () => "reloaded")).toBe("a");
    expect(await cache.get("b", async () => "reloaded")).toBe("reloaded");
  });

  it("peeks without loading; max 0 or ttlMs 0 disables it (every get loads)", async () => {
    const cache = createLoadingCache<number>({ max: 5, ttlMs: 1_000 });
    expect(cache.peek("k")).toBeUndefined();
    await cache.get("k", async () => 1);
    expect(await cache.peek("k")).toBe(1);
    for (const disabled of [
      createLoadingCache<number>({ max: 0, ttlMs: 1_000 }),
      createLoadingCache<number>({ max: 5, ttlMs: 0 }),
    ]) {
      let loads = 0;
      await disabled.get("k", async () => ++loads);
      expect(await disabled.get("k", async () => ++loads)).toBe(2);
      expect(disabled.peek("k")).toBeUndefined();
      expect(disabled.size).toBe(0);
    }
  });
});
