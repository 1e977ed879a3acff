/** The e2e test's own RFC 9162 inclusion check, against trees built here from the RFC's definitions (MTH, PATH). */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rootFromInclusionProof } from "./support/independent-anchor-check.js";

const sha256 = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();
const leafHash = (data: Buffer) => sha256(Buffer.from([0x00]), data);
/** The largest power of two smaller than n (RFC 9162 §2.1.1). */
const split = (n: number) => 2 ** Math.floor(Math.log2(n - 1));
/** MTH(D[n]) of leaf hashes. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return sha256(Buffer.from([0x01]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
/** PATH(m, D[n]) (RFC 9162 §2.1.3.1). */
function path(m: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return m < k
    ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

describe("rootFromInclusionProof (RFC 9162 §2.1.3.2)", () => {
  it("yields the tree head for every leaf of trees of 1 to 9 leaves, and not for a wrong index", () => {
    for (let size = 1; size <= 9; size++) {
      const leaves = Array.from({ length: size }, (_, i) => leafHash(Buffer.from([i])));
      const root = mth(leaves);
      for (let index = 0; index < size; index++) {
        expect(rootFromInclusionProof(leaves[index]!, index, size, path(index, leaves))).toEqual(root);
        if (size > 1) {
          const other = (index + 1) % size;
          // A proof for another position yields another root or is refused as the wrong length.
          const misplaced = () => rootFromInclusionProof(leaves[index]!, other, size, path(index, leaves));
          expect(
            (() => {
              try {
                return misplaced();
              } catch {
                return undefined;
              }
            })(),
          ).not.toEqual(root);
        }
      }
    }
  });
});
