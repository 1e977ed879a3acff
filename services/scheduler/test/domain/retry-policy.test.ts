import { describe, expect, it } from "vitest";
import { mayRetry } from "../../src/domain/backoff.js";

describe("retry policy", () => {
  it("allows retries up to the attempt limit", () => {
    const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 10_000 };
    expect([1, 4, 5, 6].map((a) => mayRetry(policy, a))).toEqual([true, true, false, false]);
  });
});
