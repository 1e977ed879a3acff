/** A signed anchoring transaction of a batch, as stored before it is broadcast. */
export interface EvmTransaction {
  hash: string;
  batchId: string;
  nonce: number;
  /** The signed transaction (0x hex). */
  raw: string;
  createdAt: Date;
}

export interface SignedTransaction {
  hash: string;
  raw: string;
}

/** The signer's anchoring transactions (evm_transactions) and its next nonce. */
export interface EvmTransactionStore {
  /** The batch's transactions, oldest first. */
  listForBatch(batchId: string): Promise<EvmTransaction[]>;
  /**
   * Gives the batch a new nonce, the larger of the signer's stored next nonce and `chainNonce`,
   * signs with it and stores the transaction, all under the signer's lock. Undefined (nothing
   * written) when the batch no longer has exactly `knownCount` transactions: another attempt
   * of the same batch got there first.
   */
  addWithNewNonce(
    batchId: string,
    knownCount: number,
    chainNonce: number,
    sign: (nonce: number) => Promise<SignedTransaction>,
  ): Promise<EvmTransaction | undefined>;
  /** Stores a re-signed transaction of the batch with a nonce it already holds (a fee replacement). */
  addReplacement(batchId: string, nonce: number, signed: SignedTransaction): Promise<EvmTransaction>;
  /** The newest transaction for each nonce in `[from, to)` of the signer, lowest nonce first. */
  newestPerNonce(from: number, to: number): Promise<EvmTransaction[]>;
}

export interface EvmReceipt {
  blockNumber: number;
  blockHash: string;
  success: boolean;
}

/** Thrown by `broadcast` when the node refuses the transaction's fees (underpriced, below the base fee). */
export class FeeTooLowError extends Error {
  override name = "FeeTooLowError";
}

/**
 * The chain through its JSON-RPC endpoint, for one signer. Every failure is thrown with a short
 * message that names neither the RPC URL nor the key.
 */
export interface EvmChain {
  readonly chainId: number;
  /** The signer's address and the anchor address (both checksummed). */
  readonly from: string;
  readonly to: string;
  /** Throws unless the endpoint answers with the configured chain id. */
  probe(): Promise<void>;
  blockNumber(): Promise<number>;
  /** Transactions of the signer mined up to `block` (a number, `latest` or `pending`). */
  nonceAt(block: number | "latest" | "pending"): Promise<number>;
  receipt(hash: string): Promise<EvmReceipt | undefined>;
  /** Whether the node knows the transaction (in its pool or mined). */
  isKnown(hash: string): Promise<boolean>;
  /** Hash of the canonical block `number` (undefined when the chain is shorter). */
  blockHash(number: number): Promise<string | undefined>;
  /** Signs an anchoring transaction carrying `data` with `nonce` at the current fees. */
  sign(nonce: number, data: string): Promise<SignedTransaction>;
  /** Sends a signed transaction; a transaction the node already has (or mined) is not an error. */
  broadcast(raw: string): Promise<void>;
}
