import { createHash } from "node:crypto";

/** SHA-256 over the concatenation of `parts`. */
function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/**
 * The Merkle tree of RFC 6962 (Certificate Transparency; RFC 9162 §2.1): leaves hashed with a
 * 0x00 prefix, interior nodes with 0x01, and the left subtree of n leaves always holding the
 * largest power of two smaller than n. Other logs' verifiers can check our proofs only because
 * these rules are exactly the standard's.
 */
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** MTH({}): the hash of an empty tree is SHA-256 of the empty string. */
export const EMPTY_TREE_HASH: Uint8Array = sha256();

/** MTH({d}) = SHA-256(0x00 || d). */
export const hashLeaf = (data: Uint8Array): Uint8Array => sha256(LEAF_PREFIX, data);

/** SHA-256(0x01 || left || right). */
export const hashChildren = (left: Uint8Array, right: Uint8Array): Uint8Array => sha256(NODE_PREFIX, left, right);

/** The largest power of two strictly smaller than n (n >= 2): the size of the left subtree. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * MTH over leaves [start, end) given their leaf hashes. Pairing level by level and carrying an odd
 * last node up unchanged builds the same left-balanced tree as the recursive definition.
 */
function rangeRoot(leafHashes: readonly Uint8Array[], start: number, end: number): Uint8Array {
  if (end <= start) return EMPTY_TREE_HASH;
  let level = leafHashes.slice(start, end);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(hashChildren(level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

/** The Merkle tree hash (root) of a log whose leaf hashes are given in order. */
export const merkleRoot = (leafHashes: readonly Uint8Array[]): Uint8Array =>
  rangeRoot(leafHashes, 0, leafHashes.length);

/**
 * The audit path PATH(m, D[n]) of RFC 6962 §2.1.1: the sibling hashes from leaf `index` up to the
 * root of the tree of all `leafHashes`, deepest first.
 */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${leafHashes.length}`);
  }
  const path: Uint8Array[] = [];
  let start = 0;
  let end = leafHashes.length;
  // Walk down from the root, remembering the sibling subtree at each split; the path lists them bottom-up.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      path.push(rangeRoot(leafHashes, start + k, end));
      end = start + k;
    } else {
      path.push(rangeRoot(leafHashes, start, start + k));
      start += k;
    }
  }
  return path.reverse();
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

const isOdd = (n: number) => n % 2 === 1;
// Plain arithmetic, not bit operators: those truncate to 32 bits and tree sizes need not fit.
const half = (n: number) => Math.floor(n / 2);

/**
 * Verifies an inclusion proof as RFC 9162 §2.1.3.2 prescribes: rebuilds the root from the leaf hash
 * and the path, and accepts only if the path has exactly the right length and the root matches.
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = hashChildren(p, r);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, root);
}
