import { createHash } from "node:crypto";
import { fromHex } from "../merkle/hex.js";
import { hashLeaf, verifyInclusion } from "../merkle/rfc6962.js";

/**
 * The calldata of an anchoring transaction on an EVM chain: the 4 bytes "ATST", a version byte
 * (1), the 32-byte batch root and the 16-byte batch id (a UUID). 53 bytes: at most 848 gas of
 * calldata on top of the 21 000 of a transfer.
 */
const MAGIC = "41545354";
const VERSION = "01";
const CALLDATA = /^0x41545354(01)([0-9a-f]{64})([0-9a-f]{32})$/;
const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

export function encodeAnchorCalldata(root: string, batchId: string): `0x${string}` {
  if (!/^[0-9a-f]{64}$/.test(root)) throw new Error("batch root must be 64 lowercase hex characters");
  const id = UUID.exec(batchId.toLowerCase());
  if (!id) throw new Error("batch id must be a UUID");
  return `0x${MAGIC}${VERSION}${root}${id.slice(1).join("")}`;
}

/** The root and batch id an anchoring transaction's input carries, or undefined for any other input. */
export function decodeAnchorCalldata(input: string): { root: string; batchId: string } | undefined {
  const match = CALLDATA.exec(input.toLowerCase());
  if (!match) return undefined;
  const [, , root, id] = match as unknown as [string, string, string, string];
  const batchId = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
  return { root, batchId };
}

/** The credential side of an anchored reference: what ties a credential digest to the anchored root. */
export interface AnchoredLeaf {
  digest: string;
  salt: string;
  saltedDigest: string;
  root: string;
  leafIndex: number;
  treeSize: number;
  path: string[];
}

/**
 * The checks that need no chain: `salted_digest = SHA-256(salt || digest)` and the RFC 9162
 * inclusion of `SHA-256(0x00 || salted_digest)` in the batch tree of `root`. Returns the failed
 * checks (empty when all hold).
 */
export function checkAnchoredLeaf(leaf: AnchoredLeaf): string[] {
  const failures: string[] = [];
  const hex64 = /^[0-9a-f]{64}$/;
  if (![leaf.digest, leaf.salt, leaf.saltedDigest, leaf.root, ...leaf.path].every((value) => hex64.test(value))) {
    return ["digest, salt, salted digest, root and path must be 64 lowercase hex characters each"];
  }
  const salted = createHash("sha256").update(fromHex(leaf.salt)).update(fromHex(leaf.digest)).digest("hex");
  if (salted !== leaf.saltedDigest) failures.push("salted_digest is not SHA-256(salt || digest)");
  const included = verifyInclusion(
    hashLeaf(fromHex(leaf.saltedDigest)),
    leaf.leafIndex,
    leaf.treeSize,
    leaf.path.map(fromHex),
    fromHex(leaf.root),
  );
  if (!included) failures.push("the inclusion proof does not lead from salted_digest to the batch root");
  return failures;
}
