import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  EMPTY_TREE_HASH,
  fromHex,
  hashChildren,
  hashLeaf,
  inclusionProof,
  merkleRoot,
  splitPoint,
  toHex,
  verifyInclusion,
} from "../src/index.js";

const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};

// RFC 6962 reference data (certificate-transparency / transparency-dev test vectors).
const DATA = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(
  fromHex,
);
const LEAVES = DATA.map(hashLeaf);
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const INCLUSION_VECTORS = [
  {
    index: 0,
    size: 8,
    proof: [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  },
  {
    index: 5,
    size: 8,
    proof: [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  },
];

/** RFC 6962 §2.1 taken literally: the brute-force reference the fast code is checked against. */
function referenceRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  const k = splitPoint(leaves.length);
  return hashChildren(referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

function referencePath(m: number, leaves: Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = splitPoint(leaves.length);
  return m < k
    ? [...referencePath(m, leaves.slice(0, k)), referenceRoot(leaves.slice(k))]
    : [...referencePath(m - k, leaves.slice(k)), referenceRoot(leaves.slice(0, k))];
}

const synthetic = Array.from({ length: 70 }, (_, i) => hashLeaf(Uint8Array.of(i, (i * 7) % 256, 0xee)));

describe("RFC 6962 Merkle tree", () => {
  it("hashes the empty tree as SHA-256 of nothing and a leaf with the 0x00 prefix", () => {
    expect(toHex(EMPTY_TREE_HASH)).toBe(ROOTS[0]);
    expect(toHex(hashLeaf(new Uint8Array()))).toBe(ROOTS[1]);
  });

  it("matches the published root of every tree size 0..8", () => {
    for (let n = 0; n <= LEAVES.length; n++) {
      expect(toHex(merkleRoot(LEAVES.slice(0, n))), `size ${n}`).toBe(ROOTS[n]);
    }
  });

  it("produces the published audit paths", () => {
    for (const { index, size, proof } of INCLUSION_VECTORS) {
      expect(inclusionProof(LEAVES.slice(0, size), index).map(toHex)).toEqual(proof);
      expect(verifyInclusion(LEAVES[index]!, index, size, proof.map(fromHex), fromHex(ROOTS[size]!))).toBe(true);
    }
  });

  it("splits at the largest power of two below n, not at the midpoint", () => {
    expect([2, 3, 4, 5, 6, 7, 8, 9, 1000].map(splitPoint)).toEqual([1, 2, 2, 4, 4, 4, 4, 8, 512]);
    expect(splitPoint(2 ** 40 + 1)).toBe(2 ** 40);
  });

  it("agrees with the brute-force reference for every size up to 70 (powers of two and not)", () => {
    for (let n = 0; n <= synthetic.length; n++) {
      const leaves = synthetic.slice(0, n);
      expect(toHex(merkleRoot(leaves)), `size ${n}`).toBe(toHex(referenceRoot(leaves)));
    }
  });

  it("gives every leaf of every tree size the reference path, and that path verifies", () => {
    for (let n = 1; n <= 40; n++) {
      const leaves = synthetic.slice(0, n);
      const root = merkleRoot(leaves);
      for (let i = 0; i < n; i++) {
        const path = inclusionProof(leaves, i);
        expect(path.map(toHex), `leaf ${i} of ${n}`).toEqual(referencePath(i, leaves).map(toHex));
        expect(verifyInclusion(leaves[i]!, i, n, path, root), `leaf ${i} of ${n}`).toBe(true);
      }
    }
  });

  it("rejects a proof for the wrong leaf, index, tree shape or root, and a tampered, short or long path", () => {
    const n = 13;
    const leaves = synthetic.slice(0, n);
    const root = merkleRoot(leaves);
    for (let i = 0; i < n; i++) {
      const path = inclusionProof(leaves, i);
      const leaf = leaves[i]!;
      expect(verifyInclusion(leaves[(i + 1) % n]!, i, n, path, root)).toBe(false);
      expect(verifyInclusion(leaf, (i + 1) % n, n, path, root)).toBe(false);
      // (A size with the same tree shape above the leaf yields the same root, so size is checked by range.)
      expect(verifyInclusion(leaf, i, i, path, root)).toBe(false);
      if (i > 0) expect(verifyInclusion(leaf, i, 2 * n, path, root)).toBe(false);
      expect(verifyInclusion(leaf, i, n, path, merkleRoot(leaves.slice(0, n - 1)))).toBe(false);
      expect(verifyInclusion(leaf, i, n, path.slice(0, -1), root)).toBe(false);
      expect(verifyInclusion(leaf, i, n, [...path, root], root)).toBe(false);
      const tampered = path.map((p, j) => (j === 0 ? hashLeaf(p) : p));
      expect(verifyInclusion(leaf, i, n, tampered, root)).toBe(false);
    }
    expect(verifyInclusion(leaves[0]!, -1, n, [], root)).toBe(false);
    expect(verifyInclusion(leaves[0]!, n, n, [], root)).toBe(false);
  });

  it("proves the single leaf of a one-leaf tree with an empty path", () => {
    const leaf = LEAVES[3]!;
    expect(inclusionProof([leaf], 0)).toEqual([]);
    expect(verifyInclusion(leaf, 0, 1, [], leaf)).toBe(true);
  });

  it("refuses to build a path for a leaf outside the tree", () => {
    expect(() => inclusionProof(LEAVES, 8)).toThrow(RangeError);
    expect(() => inclusionProof([], 0)).toThrow(RangeError);
  });
});
