import { describe, expect, it } from "vitest";
import { backoffDelayMs, mayRetry } from "../../src/domain/backoff.js";

const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 10_000 };

describe("exponential backoff with jitter", () => {
  it("doubles per attempt within [d/2, d], capped at the maximum", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelayMs(policy, a, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect([1, 2, 3, 4, 5].map((a) => backoffDelayMs(policy, a, () => 0))).toEqual([500, 1000, 2000, 4000, 5000]);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelayMs(policy, 3);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });

  it("never overflows for large attempt numbers", () => {
    expect(backoffDelayMs(policy, 10_000, () => 1)).toBe(10_000);
  });

  it("allows retries up to the attempt limit", () => {
    expect([1, 4, 5, 6].map((a) => mayRetry(policy, a))).toEqual([true, true, false, false]);
  });
});
