import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "../src/backoff.js";

const policy = { baseDelayMs: 1000, maxDelayMs: 10_000 };

describe("exponential backoff with jitter", () => {
  it("doubles per attempt within [d/2, d] by default (equal jitter), capped at the maximum", () => {
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

  it("spreads by the policy's jitter factors (the operator's +-10%, the RPC client's [d, 2d])", () => {
    const operator = { baseDelayMs: 4, maxDelayMs: 16, jitter: { min: 0.9, max: 1.1 } };
    expect([1, 2, 3, 4].map((a) => backoffDelayMs(operator, a, () => 0))).toEqual([4, 7, 14, 14]);
    expect([1, 2, 3, 4].map((a) => backoffDelayMs(operator, a, () => 1))).toEqual([4, 9, 18, 18]);
    const rpc = { baseDelayMs: 50, maxDelayMs: Number.POSITIVE_INFINITY, jitter: { min: 1, max: 2 } };
    expect([1, 2, 3].map((a) => backoffDelayMs(rpc, a, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((a) => backoffDelayMs(rpc, a, () => 1))).toEqual([100, 200, 400]);
  });

  it("never overflows for large attempt numbers", () => {
    expect(backoffDelayMs(policy, 10_000, () => 1)).toBe(10_000);
  });
});
