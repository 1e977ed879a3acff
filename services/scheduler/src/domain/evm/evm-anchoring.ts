import { encodeAnchorCalldata } from "@attesto/protocol";
import { unavailable } from "@attesto/runtime/errors";
import type { EvmAnchor } from "../model.js";
import type { LedgerAnchoring } from "../ports.js";
import { type EvmChain, type EvmTransaction, type EvmTransactionStore, FeeTooLowError } from "../ports.js";

export interface EvmAnchoringOptions {
  /** Blocks on top of (and including) the transaction's block before the anchor is recorded. */
  confirmations: number;
  /** How long one attempt waits for the transaction to be mined and confirmed. */
  waitMs: number;
  /** Pause between two looks at the chain while waiting. */
  pollingIntervalMs: number;
  /** Waits between polls (injected so tests drive time). */
  pause?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Where one look at the chain left the batch: anchored, or what it is waiting for. */
type Step = { anchor: EvmAnchor } | { waiting: string };

/**
 * LEDGER_BACKEND=evm: one transaction per batch from the signer, carrying the batch root as
 * calldata (`encodeAnchorCalldata`), recorded once it has `confirmations` confirmations.
 *
 * Exactly once: a batch is given one nonce, in a transaction stored before it is broadcast;
 * later attempts look for its receipt, broadcast the stored transaction again when the node lost
 * it (dropped, reorged away, never sent before a crash) and re-sign the same nonce only for
 * fees. Transactions sharing a nonce cannot all be mined, so a batch is on the chain at most
 * once. A new nonce is taken only when the batch's nonce was used by another transaction in a
 * block at the confirmation depth and none of the batch's transactions has a receipt.
 */
export function createEvmAnchoring(
  chain: EvmChain,
  store: EvmTransactionStore,
  options: EvmAnchoringOptions,
): LedgerAnchoring {
  const pause = options.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;

  /** Puts `transaction` (or a fee replacement with its nonce) in the node's pool unless it is known. */
  async function ensureSent(batchId: string, transaction: EvmTransaction, data: string): Promise<void> {
    if (await chain.isKnown(transaction.hash)) return;
    try {
      await chain.broadcast(transaction.raw);
    } catch (error) {
      if (!(error instanceof FeeTooLowError)) throw error;
      const replacement = await store.addReplacement(
        batchId,
        transaction.nonce,
        await chain.sign(transaction.nonce, data),
      );
      await chain.broadcast(replacement.raw);
    }
  }

  async function newTransaction(batchId: string, known: number, data: string): Promise<Step> {
    const chainNonce = await chain.nonceAt("pending");
    const added = await store.addWithNewNonce(batchId, known, chainNonce, (nonce) => chain.sign(nonce, data));
    if (!added) return { waiting: "another attempt of this batch is sending its transaction" };
    await chain.broadcast(added.raw);
    return { waiting: `transaction ${added.hash} is waiting to be mined` };
  }

  async function step(batchId: string, data: string): Promise<Step> {
    const transactions = await store.listForBatch(batchId);
    if (transactions.length === 0) return newTransaction(batchId, 0, data);
    const latest = await chain.blockNumber();
    // Read before the receipts: a nonce used at the confirmation depth by a transaction whose
    // receipt is not among the batch's can only be another transaction's.
    const confirmedNonce = await chain.nonceAt(Math.max(0, latest - options.confirmations + 1));
    for (const transaction of transactions) {
      const receipt = await chain.receipt(transaction.hash);
      if (!receipt?.success) continue;
      const confirmations = latest - receipt.blockNumber + 1;
      if (confirmations < options.confirmations) {
        return {
          waiting: `transaction ${transaction.hash} has ${confirmations} of ${options.confirmations} confirmations`,
        };
      }
      if ((await chain.blockHash(receipt.blockNumber)) !== receipt.blockHash) {
        return { waiting: `transaction ${transaction.hash} is in a block that left the chain` };
      }
      return {
        anchor: {
          kind: "evm",
          chain: `eip155:${chain.chainId}`,
          chainId: chain.chainId,
          transactionHash: transaction.hash,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          from: chain.from,
          to: chain.to,
          confirmations,
        },
      };
    }
    const nonce = Math.max(...transactions.map((t) => t.nonce));
    if (confirmedNonce > nonce) return newTransaction(batchId, transactions.length, data);
    const latestNonce = await chain.nonceAt("latest");
    if (latestNonce > nonce) {
      return { waiting: `nonce ${nonce} was used by another transaction not yet at the confirmation depth` };
    }
    // Lower nonces the node lost (a crash before their broadcast, a drop) hold ours back: send
    // them again as stored (their own batches re-sign them when fees went up).
    for (const earlier of await store.newestPerNonce(latestNonce, nonce)) {
      if (await chain.isKnown(earlier.hash)) continue;
      await chain.broadcast(earlier.raw).catch((error: unknown) => {
        if (!(error instanceof FeeTooLowError)) throw error;
      });
    }
    const newest = transactions.filter((t) => t.nonce === nonce).at(-1) as EvmTransaction;
    await ensureSent(batchId, newest, data);
    return { waiting: `transaction ${newest.hash} is waiting to be mined` };
  }

  return {
    async anchor({ batchId, root }) {
      const data = encodeAnchorCalldata(root, batchId);
      const deadline = now() + options.waitMs;
      for (;;) {
        const result = await step(batchId, data);
        if ("anchor" in result) return result.anchor;
        if (now() >= deadline) throw new Error(`not anchored yet: ${result.waiting}`);
        await pause(options.pollingIntervalMs);
      }
    },
    // 503 `Ledger is unavailable` for the issuer, as with the embedded ledger (the chain is the ledger here).
    probe: () =>
      chain.probe().catch((error: unknown) => {
        throw unavailable("Ledger is unavailable", { cause: error });
      }),
  };
}
