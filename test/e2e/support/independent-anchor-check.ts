/**
 * An EVM notarization reference checked from the standards and the documented formats alone, with
 * none of the product's code (not @attesto/protocol, not viem): RFC 9162 §2.1.3.2 inclusion written
 * here, the chain read with plain JSON-RPC. It backs the CLI's verification in the e2e test, so a
 * misunderstanding shared by the scheduler and the CLI (which share their decoding code) cannot pass.
 */
import { createHash } from "node:crypto";

const sha256 = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();
const hex = (value: string) => Buffer.from(value, "hex");

/** RFC 9162 §2.1.3.2: the root an inclusion proof yields for `leafHash` at `index` in a tree of `size`. */
export function rootFromInclusionProof(leafHash: Buffer, index: number, size: number, path: Buffer[]): Buffer {
  if (index >= size) throw new Error("leaf index outside the tree");
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) throw new Error("proof longer than the tree");
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([0x01]), p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = sha256(Buffer.from([0x01]), r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  if (sn !== 0) throw new Error("proof shorter than the tree");
  return r;
}

export interface EvmReference {
  issuer_salt: string;
  digest: string;
  salt: string;
  salted_digest: string;
  inclusion_proof: { batch_id: string; root: string; leaf_index: number; tree_size: number; path: string[] };
  transaction_hash: string;
  block_number: number;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown> };
  if (!body.result) throw new Error(`${method}: no result`);
  return body.result;
}

/**
 * Every link from the issuer's JWT to the chain, as the scheduler README documents it:
 * digest = SHA-256(issuer_salt || SHA-256(issuer JWT)); salted_digest = SHA-256(salt || digest);
 * leaf = SHA-256(0x00 || salted_digest) included under the root; a successful transaction in the named
 * block whose input is "ATST" 0x01 root batch-id. Returns the first link that does not hold, or "ok".
 */
export async function checkEvmReference(rpcUrl: string, issuerJwt: string, reference: EvmReference): Promise<string> {
  const committed = sha256(hex(reference.issuer_salt), sha256(Buffer.from(issuerJwt, "utf8")));
  if (committed.toString("hex") !== reference.digest) return "digest";
  const salted = sha256(hex(reference.salt), hex(reference.digest));
  if (salted.toString("hex") !== reference.salted_digest) return "salted digest";
  const { leaf_index, tree_size, path, root, batch_id } = reference.inclusion_proof;
  const leaf = sha256(Buffer.from([0x00]), salted);
  if (rootFromInclusionProof(leaf, leaf_index, tree_size, path.map(hex)).toString("hex") !== root) return "root";
  const transaction = await rpc(rpcUrl, "eth_getTransactionByHash", [reference.transaction_hash]);
  if (Number(transaction.blockNumber) !== reference.block_number) return "block";
  // "ATST", version 0x01, the root, the batch id (16 bytes)
  if (transaction.input !== `0x4154535401${root}${batch_id.replaceAll("-", "")}`) return "calldata";
  const receipt = await rpc(rpcUrl, "eth_getTransactionReceipt", [reference.transaction_hash]);
  if (receipt.status !== "0x1") return "receipt";
  return "ok";
}
