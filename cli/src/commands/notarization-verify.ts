import { readFileSync } from "node:fs";
import { checkAnchoredLeaf, credentialDigestOf, decodeAnchorCalldata, notarizedDigestOf } from "@attesto/protocol";
import { createPublicClient, http } from "viem";
import type { CommandIo } from "./io.js";
import { type AnchoredReference, parseAnchoredReference, ReferenceFormatError } from "./notarization-reference.js";

export { type AnchoredReference, parseAnchoredReference, ReferenceFormatError };

interface ChainTransaction {
  blockNumber: string | null;
  from: string;
  to: string | null;
  input: string;
}

/**
 * Given the credential: that the reference is for it, digest = SHA-256(issuer_salt || SHA-256(issuer
 * JWT)) (the issuer-signed JWT of an SD-JWT VC, the whole string of an mdoc).
 */
function credentialFailures(reference: AnchoredReference): string[] {
  if (reference.credential === undefined) return [];
  if (reference.issuer_salt === undefined) return ["the reference names no issuer_salt to tie it to the credential"];
  const digest = notarizedDigestOf(reference.issuer_salt, credentialDigestOf(reference.credential));
  return digest === reference.digest ? [] : ["the reference is not for this credential (digest differs)"];
}

/**
 * Checks a reference against the chain alone, through any JSON-RPC endpoint: the leaf and its
 * Merkle proof, then that the transaction is in the named block of the canonical chain, succeeded,
 * carries the batch root, came from the named signer and has at least `confirmations`.
 * Returns the failures (empty: verified) and what was verified.
 */
export async function verifyAnchoredReference(
  reference: AnchoredReference,
  options: { rpcUrl: string; confirmations: number; timeoutMs?: number },
): Promise<{ failures: string[]; summary: string }> {
  const { reference: ref, inclusion_proof: proof } = reference;
  const failures = checkAnchoredLeaf({
    digest: reference.digest,
    salt: reference.salt,
    saltedDigest: reference.salted_digest,
    root: proof.root,
    leafIndex: proof.leaf_index,
    treeSize: proof.tree_size,
    path: proof.path,
  });
  if (ref.chain !== `eip155:${ref.chain_id}`) failures.push("reference.chain does not name reference.chain_id");
  failures.push(...credentialFailures(reference));
  const client = createPublicClient({
    transport: http(options.rpcUrl, { timeout: options.timeoutMs ?? 15_000, retryCount: 1 }),
  });
  const rpc = <T>(method: string, params: unknown[] = []) => client.request({ method, params } as never) as Promise<T>;
  const chainId = Number(BigInt(await rpc<string>("eth_chainId")));
  if (chainId !== ref.chain_id) {
    failures.push(`the RPC endpoint serves chain ${chainId}, not ${ref.chain_id}`);
    return { failures, summary: "" };
  }
  const transaction = await rpc<ChainTransaction | null>("eth_getTransactionByHash", [ref.transaction_hash]);
  if (!transaction?.blockNumber) {
    failures.push("the transaction is not in any block of the chain");
    return { failures, summary: "" };
  }
  const blockNumber = Number(BigInt(transaction.blockNumber));
  if (blockNumber !== ref.block_number)
    failures.push(`the transaction is in block ${blockNumber}, not ${ref.block_number}`);
  const carried = decodeAnchorCalldata(transaction.input);
  if (!carried) failures.push("the transaction does not carry an anchoring payload");
  else {
    if (carried.root !== proof.root) failures.push("the transaction carries another batch root");
    if (carried.batchId !== proof.batch_id.toLowerCase()) failures.push("the transaction carries another batch id");
  }
  const signer = reference.evm?.from;
  if (signer && transaction.from.toLowerCase() !== signer.toLowerCase())
    failures.push("the transaction is not from the named signer");
  const to = reference.evm?.to;
  if (to && transaction.to?.toLowerCase() !== to.toLowerCase())
    failures.push("the transaction is not to the named anchor address");
  const receipt = await rpc<{ status: string; blockHash: string } | null>("eth_getTransactionReceipt", [
    ref.transaction_hash,
  ]);
  if (receipt?.status !== "0x1") failures.push("the transaction did not succeed");
  const block = await rpc<{ hash: string } | null>("eth_getBlockByNumber", [`0x${blockNumber.toString(16)}`, false]);
  if (!receipt || block?.hash !== receipt.blockHash)
    failures.push("the transaction's block is not on the canonical chain");
  const latest = Number(BigInt(await rpc<string>("eth_blockNumber")));
  const confirmations = latest - blockNumber + 1;
  if (confirmations < options.confirmations) {
    failures.push(`the transaction has ${confirmations} confirmations, fewer than ${options.confirmations}`);
  }
  const subject = reference.credential === undefined ? "salted digest" : "the credential's salted digest";
  const summary =
    `${subject} ${reference.salted_digest} is leaf ${proof.leaf_index} of ${proof.tree_size} under root ${proof.root}, ` +
    `anchored by ${transaction.from} in transaction ${ref.transaction_hash}, block ${blockNumber} of ${ref.chain} ` +
    `(${confirmations} confirmations)`;
  return { failures, summary };
}

const USAGE =
  "usage: attesto notarization verify <reference.json | credential.json | -> --rpc-url URL [--confirmations N]";

/**
 * `attesto notarization verify <reference | credential | -> --rpc-url URL`: needs nothing of the
 * platform (no database, no service URL): the input, the chain's JSON-RPC and pure code shared with
 * the scheduler (calldata decoding, RFC 9162 inclusion, the digest chain).
 * Exit codes: 0 verified, 1 not verified (each failed check on stderr), 2 usage or unreadable reference.
 */
export async function runNotarizationVerify(
  args: { positionals: string[]; rpcUrl: string | undefined; confirmations: string | undefined },
  io: CommandIo,
  readStdin: () => string = () => readFileSync(0, "utf8"),
): Promise<number> {
  const [source, ...extra] = args.positionals;
  const confirmations = Number(args.confirmations ?? "1");
  if (!source || extra.length > 0 || !args.rpcUrl || !Number.isSafeInteger(confirmations) || confirmations < 1) {
    io.err(USAGE);
    return 2;
  }
  let reference: AnchoredReference;
  try {
    const text =
      source === "-" ? readStdin() : source.trimStart().startsWith("{") ? source : readFileSync(source, "utf8");
    reference = parseAnchoredReference(text);
  } catch (error) {
    io.err(`attesto: ${error instanceof ReferenceFormatError ? error.message : "cannot read the reference"}`);
    return 2;
  }
  let result: { failures: string[]; summary: string };
  try {
    result = await verifyAnchoredReference(reference, { rpcUrl: args.rpcUrl, confirmations });
  } catch {
    io.err("attesto: the RPC endpoint could not be reached or answered in error");
    return 1;
  }
  if (result.failures.length > 0) {
    for (const failure of result.failures) io.err(`not verified: ${failure}`);
    return 1;
  }
  io.out(`verified: ${result.summary}`);
  return 0;
}
