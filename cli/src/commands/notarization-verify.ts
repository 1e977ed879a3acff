import { readFileSync } from "node:fs";
import { checkAnchoredLeaf, decodeAnchorCalldata } from "@attesto/protocol";
import { createPublicClient, http } from "viem";
import { z } from "zod";
import type { CommandIo } from "./io.js";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/**
 * An anchored reference on an EVM chain: the `data` of a `credential.notarized` event (or the
 * event itself) from a scheduler with LEDGER_BACKEND=evm.
 */
const anchoredReference = z.object({
  reference: z.object({
    chain: z.string().regex(/^eip155:[0-9]+$/, "must be eip155:<chain id> (an EVM anchor)"),
    object_id: z.string(),
    chain_id: z.number().int().positive(),
    transaction_hash: txHash,
    block_number: z.number().int().nonnegative(),
  }),
  digest: hex64,
  salt: hex64,
  salted_digest: hex64,
  inclusion_proof: z.object({
    batch_id: z.string(),
    root: hex64,
    leaf_index: z.number().int().nonnegative(),
    tree_size: z.number().int().positive(),
    path: z.array(hex64),
  }),
  evm: z.object({ from: address, to: address }).partial().optional(),
});
type AnchoredReference = z.infer<typeof anchoredReference>;

export class ReferenceFormatError extends Error {
  override name = "ReferenceFormatError";
}

/** The reference in `text`: the event, its `data`, or an object holding either under `notarization`. */
export function parseAnchoredReference(text: string): AnchoredReference {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ReferenceFormatError("the reference is not JSON");
  }
  const candidates = [json, (json as { data?: unknown })?.data, (json as { notarization?: unknown })?.notarization];
  let problems: string[] = [];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === null) continue;
    const parsed = anchoredReference.safeParse(candidate);
    if (parsed.success) return parsed.data;
    if (problems.length === 0) {
      problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
  }
  throw new ReferenceFormatError(`not an EVM anchored reference (${problems.slice(0, 5).join("; ")})`);
}

interface ChainTransaction {
  blockNumber: string | null;
  from: string;
  to: string | null;
  input: string;
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
  const summary =
    `salted digest ${reference.salted_digest} is leaf ${proof.leaf_index} of ${proof.tree_size} under root ${proof.root}, ` +
    `anchored by ${transaction.from} in transaction ${ref.transaction_hash}, block ${blockNumber} of ${ref.chain} ` +
    `(${confirmations} confirmations)`;
  return { failures, summary };
}

const USAGE = "usage: attesto notarization verify <reference.json | -> --rpc-url URL [--confirmations N]";

/**
 * `attesto notarization verify <reference | -> --rpc-url URL`: needs nothing of the platform.
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
