import { randomFillSync, randomInt } from "node:crypto";
import type { StatusIndexDraws } from "./status-lists.js";

/** Draws are 30-bit: every list size (a power of two, at most 2^20) divides 2^30. */
const DRAW_MASK = 2 ** 30 - 1;

/**
 * Herd privacy (Token Status List, "Linkability Mitigation" and "Observability"): an index says
 * nothing about the credential, its order of issuance or its neighbours. Draws come from the
 * CSPRNG; the store keeps the first draws whose index is free, which makes each index uniform
 * among the free ones (rejection sampling), so allocation stays exact as a list fills up.
 */
export const statusIndexDraws = (random: (max: number) => number = (max) => randomInt(max)): StatusIndexDraws => ({
  draws(count) {
    const words = randomFillSync(new Uint32Array(count));
    return Array.from(words, (word) => word & DRAW_MASK);
  },
  among(free, count) {
    const pool = [...free];
    const picked: number[] = [];
    for (let n = 0; n < count && pool.length > 0; n++) {
      const at = random(pool.length);
      picked.push(pool[at]!);
      pool[at] = pool[pool.length - 1]!;
      pool.pop();
    }
    return picked;
  },
});
