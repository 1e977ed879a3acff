import {
  BaseError,
  createPublicClient,
  getAddress,
  type Hex,
  HttpRequestError,
  http,
  keccak256,
  RpcRequestError,
  TimeoutError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type EvmChain, FeeTooLowError } from "../domain/ports.js";

export interface EvmChainOptions {
  rpcUrl: string;
  chainId: number;
  /** 0x-prefixed 32-byte secp256k1 key. Kept in this closure only; never logged or returned. */
  signerKey: Hex;
  /** Anchor address; the signer's own address when absent. */
  anchorAddress?: string;
  gasLimit: bigint;
  /** Highest max fee per gas (wei) a transaction may offer; unlimited when absent. */
  maxFeePerGas?: bigint;
  timeoutMs: number;
}

const UNREACHABLE = "EVM RPC endpoint could not be reached";

/**
 * A short message for a failed JSON-RPC call: never the URL (it may carry an API key) nor the
 * request body. `underpriced` errors become FeeTooLowError.
 */
function chainFailure(error: unknown): Error {
  if (!(error instanceof BaseError)) return new Error(UNREACHABLE);
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) return new Error(UNREACHABLE);
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  const details = (rpc?.details ?? error.shortMessage).slice(0, 200);
  if (/insufficient funds/i.test(details)) {
    return new Error("the signer cannot pay for the anchoring transaction (insufficient funds)");
  }
  if (/underpriced|fee too low|base fee|fee cap/i.test(details)) return new FeeTooLowError(`fees too low: ${details}`);
  return new Error(`EVM RPC error: ${details}`);
}

const ALREADY_SENT = /already known|known transaction|already imported|nonce too low/i;

/** The chain through viem's JSON-RPC client, signing locally with the configured key. */
export function createEvmChain(options: EvmChainOptions): EvmChain {
  const account = privateKeyToAccount(options.signerKey);
  const to = getAddress(options.anchorAddress ?? account.address);
  const client = createPublicClient({ transport: http(options.rpcUrl, { timeout: options.timeoutMs, retryCount: 0 }) });
  // Plain JSON-RPC (viem's typed methods would add nothing here); every failure goes through chainFailure.
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    try {
      return (await client.request({ method, params } as never)) as T;
    } catch (error) {
      throw chainFailure(error);
    }
  };
  const quantity = (value: number) => `0x${value.toString(16)}`;
  const number = (hex: string) => Number(BigInt(hex));

  return {
    chainId: options.chainId,
    from: account.address,
    to,
    async probe() {
      const id = number(await rpc<string>("eth_chainId"));
      if (id !== options.chainId) throw new Error(`EVM RPC endpoint serves chain ${id}, not ${options.chainId}`);
    },
    blockNumber: async () => number(await rpc<string>("eth_blockNumber")),
    nonceAt: async (block) =>
      number(
        await rpc<string>("eth_getTransactionCount", [
          account.address,
          typeof block === "number" ? quantity(block) : block,
        ]),
      ),
    async receipt(hash) {
      const receipt = await rpc<{ blockNumber: string; blockHash: string; status: string } | null>(
        "eth_getTransactionReceipt",
        [hash],
      );
      if (!receipt?.blockNumber) return undefined;
      return {
        blockNumber: number(receipt.blockNumber),
        blockHash: receipt.blockHash,
        success: receipt.status === "0x1",
      };
    },
    isKnown: async (hash) => (await rpc<unknown>("eth_getTransactionByHash", [hash])) !== null,
    async blockHash(blockNumber) {
      const block = await rpc<{ hash: string } | null>("eth_getBlockByNumber", [quantity(blockNumber), false]);
      return block?.hash ?? undefined;
    },
    async sign(nonce, data) {
      const block = await rpc<{ baseFeePerGas?: string }>("eth_getBlockByNumber", ["latest", false]);
      const baseFee = BigInt(block.baseFeePerGas ?? "0x0");
      const tip = BigInt(await rpc<string>("eth_maxPriorityFeePerGas"));
      let maxFeePerGas = 2n * baseFee + tip;
      if (options.maxFeePerGas !== undefined) {
        if (options.maxFeePerGas < baseFee + tip) {
          throw new Error("the chain's fees are above EVM_MAX_FEE_PER_GAS_WEI; the transaction waits");
        }
        if (maxFeePerGas > options.maxFeePerGas) maxFeePerGas = options.maxFeePerGas;
      }
      const raw = await account.signTransaction({
        type: "eip1559",
        chainId: options.chainId,
        nonce,
        to,
        value: 0n,
        data: data as Hex,
        gas: options.gasLimit,
        maxFeePerGas,
        maxPriorityFeePerGas: tip,
      });
      return { hash: keccak256(raw), raw };
    },
    async broadcast(raw) {
      try {
        await rpc<string>("eth_sendRawTransaction", [raw]);
      } catch (error) {
        if (error instanceof Error && ALREADY_SENT.test(error.message)) return;
        throw error;
      }
    },
  };
}
