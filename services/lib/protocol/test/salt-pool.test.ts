import { describe, expect, it } from "vitest";
import { createSaltGenerator } from "../src/sd-jwt-issue/salt-pool.js";

describe("salt pool", () => {
  it("hands out salts of the asked size, never the same one twice, across pool refills", () => {
    const next = createSaltGenerator(16, 4);
    const salts = Array.from({ length: 4 * 25 + 3 }, next);
    for (const salt of salts) expect(Buffer.from(salt, "base64url")).toHaveLength(16);
    expect(new Set(salts).size).toBe(salts.length);
  });

  it("keeps separate pools per generator", () => {
    const a = createSaltGenerator(16);
    const b = createSaltGenerator(16);
    const fromA = Array.from({ length: 50 }, a);
    const fromB = Array.from({ length: 50 }, b);
    expect(new Set([...fromA, ...fromB]).size).toBe(100);
  });
});
