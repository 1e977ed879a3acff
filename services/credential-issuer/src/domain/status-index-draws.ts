import { randomInt } from "node:crypto";
import { pooledRandomBytes } from "@attesto/protocol";
import type { StatusIndexDraws } from "./ports.js";

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
    // 32-bit words cut from the process's pool of CSPRNG output (one `randomBytes` per 4 KiB).
    const bytes = pooledRandomBytes(4 * count);
    return Array.from({ length: count }, (_, n) => bytes.readUInt32LE(4 * n) & DRAW_MASK);
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
