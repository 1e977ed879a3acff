import { randomInt } from "node:crypto";
import type { PickIndexes } from "./status-lists.js";

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, byte) => {
  let count = 0;
  for (let bits = byte; bits !== 0; bits >>= 1) count += bits & 1;
  return count;
});

/** The `k`-th (from 0) clear bit of `allocated`, least significant bit of each byte first. */
function kthFreeIndex(allocated: Uint8Array, k: number): number {
  let remaining = k;
  for (let byte = 0; byte < allocated.length; byte++) {
    const value = allocated[byte] ?? 0;
    const free = 8 - (POPCOUNT[value] ?? 0);
    if (remaining >= free) {
      remaining -= free;
      continue;
    }
    for (let bit = 0; bit < 8; bit++) {
      if ((value & (1 << bit)) !== 0) continue;
      if (remaining === 0) return byte * 8 + bit;
      remaining--;
    }
  }
  throw new Error("no free status list index left");
}

/**
 * Herd privacy (Token Status List, "Linkability Mitigation" and "Observability"): an index says
 * nothing about the credential, its order of issuance or its neighbours. Each index is drawn
 * uniformly (CSPRNG) among the free ones, so allocation stays exact as a list fills up.
 */
export const pickFreeIndexes =
  (random: (max: number) => number = (max) => randomInt(max)): PickIndexes =>
  (allocated, size, allocatedCount, count) => {
    const picked: number[] = [];
    for (let n = 0; n < count; n++) {
      const free = size - allocatedCount - n;
      if (free <= 0) throw new Error("no free status list index left");
      const index = kthFreeIndex(allocated, random(free));
      allocated[index >> 3] = (allocated[index >> 3] ?? 0) | (1 << (index & 7));
      picked.push(index);
    }
    return picked;
  };
