import { describe, expect, it } from "vitest";
import { createRandomPool, pooledRandomBytes } from "../src/random/random-pool.js";

describe("random pool", () => {
  it("hands out pieces of the asked size, never the same bytes twice, across refills", () => {
    const take = createRandomPool(64);
    const pieces = Array.from({ length: 200 }, (_, n) => take(8 + (n % 9)));
    pieces.forEach((piece, n) => {
      expect(piece).toHaveLength(8 + (n % 9));
    });
    expect(new Set(pieces.map((piece) => piece.toString("hex"))).size).toBe(pieces.length);
  });

  it("gives each caller its own copy: clearing a piece leaves later pieces random", () => {
    const take = createRandomPool(64);
    const pieces = Array.from({ length: 4 }, () => take(16));
    for (const piece of pieces.slice(0, 3)) piece.fill(0);
    expect(pieces[3]!.equals(Buffer.alloc(16))).toBe(false);
    expect(take(16).equals(Buffer.alloc(16))).toBe(false);
  });

  it("draws a piece larger than the pool on its own", () => {
    const take = createRandomPool(32);
    const big = take(100);
    expect(big).toHaveLength(100);
    expect(big.equals(Buffer.alloc(100))).toBe(false);
  });

  it("spreads its bytes over every value (no stuck bits)", () => {
    const counts = new Array<number>(256).fill(0);
    for (let n = 0; n < 64; n++) for (const byte of pooledRandomBytes(1024)) counts[byte]! += 1;
    // 65,536 bytes, 256 expected per value: any value missing or at 4x would be a broken source.
    expect(Math.min(...counts)).toBeGreaterThan(128);
    expect(Math.max(...counts)).toBeLessThan(1024);
  });
});
