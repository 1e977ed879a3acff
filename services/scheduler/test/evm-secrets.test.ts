import { loggerOptions } from "@attesto/runtime/logging";
import { testIdentityEnv } from "@attesto/runtime/testing";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createEvmChain } from "../src/clients/evm-chain.js";
import { loadSchedulerConfig } from "../src/config.js";

const KEY = `0x${"5a".repeat(32)}` as const;

describe("EVM backend: the signer key and the RPC URL never reach a message", () => {
  it("an unreachable endpoint is reported without its URL (which may carry an API key)", async () => {
    const chain = createEvmChain({
      rpcUrl: "http://127.0.0.1:9/v3/SECRET-API-KEY",
      chainId: 1,
      signerKey: KEY,
      gasLimit: 60_000n,
      timeoutMs: 1_000,
    });
    for (const call of [() => chain.probe(), () => chain.blockNumber(), () => chain.broadcast("0x02")]) {
      const error = (await call().catch((e: unknown) => e)) as Error;
      expect(error.message).toBe("EVM RPC endpoint could not be reached");
      expect(JSON.stringify({ message: error.message, stack: error.stack, cause: error.cause })).not.toContain(
        "SECRET-API-KEY",
      );
    }
    expect(JSON.stringify(chain)).not.toContain("5a5a5a");
  });

  it("the logger redacts the key wherever a configuration object carries it", () => {
    const lines: string[] = [];
    const log = pino(loggerOptions("scheduler", "info"), { write: (line: string) => lines.push(line) });
    log.info({ config: { EVM_SIGNER_KEY: KEY }, EVM_SIGNER_KEY: KEY, chain: { signerKey: KEY } }, "configured");
    expect(lines.join("")).not.toContain("5a5a5a");
    expect(lines.join("")).toContain("[redacted]");
  });

  it("configuration errors name the variable, never the key", () => {
    const load = (env: Record<string, string>) => {
      try {
        loadSchedulerConfig({ DATABASE_URL: "postgres://localhost/x", ...testIdentityEnv("scheduler"), ...env });
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const badKey = `0x${"zz".repeat(32)}`;
    const message = load({
      LEDGER_BACKEND: "evm",
      EVM_RPC_URL: "http://127.0.0.1:8545",
      EVM_CHAIN_ID: "1",
      EVM_SIGNER_KEY: badKey,
    });
    expect(message).toContain("EVM_SIGNER_KEY: must be 0x followed by 64 hex characters");
    expect(message).not.toContain(badKey);
    expect(load({ LEDGER_BACKEND: "evm" })).toContain(
      "LEDGER_BACKEND: evm needs EVM_RPC_URL, EVM_CHAIN_ID and EVM_SIGNER_KEY",
    );
    expect(
      load({ LEDGER_BACKEND: "evm", EVM_RPC_URL: "http://127.0.0.1:8545", EVM_CHAIN_ID: "1", EVM_SIGNER_KEY: KEY }),
    ).not.toContain("LEDGER_BACKEND");
  });
});
