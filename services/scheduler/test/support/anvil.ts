import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const require = createRequire(import.meta.url);

/** The anvil binary of this platform from its npm package (installed by `npm ci`, no install script). */
export function anvilBinary(): string {
  const os = { linux: "linux", darwin: "darwin", win32: "win32" }[process.platform as string];
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  const pkg = `@foundry-rs/anvil-${os}-${arch}`;
  return join(
    dirname(require.resolve(`${pkg}/package.json`)),
    "bin",
    process.platform === "win32" ? "anvil.exe" : "anvil",
  );
}

async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export const ANVIL_CHAIN_ID = 31337;

/** A local anvil node with manual mining: blocks appear only when a test mines them. */
export interface Anvil {
  url: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `blocks` blocks (with whatever the pool holds). */
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<number>;
  /** A fresh key funded with `ether` (default 10). */
  fundedKey(ether?: bigint): Promise<`0x${string}`>;
  setBalance(address: string, wei: bigint): Promise<void>;
  /** Hashes of pending transactions from `address` in the pool. */
  pendingFrom(address: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startAnvil(): Promise<Anvil> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    anvilBinary(),
    ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(ANVIL_CHAIN_ID), "--no-mining", "--silent"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error("anvil exited at start");
    const ready = await rpc("eth_chainId").then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error("anvil did not start within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const setBalance = (address: string, wei: bigint) =>
    rpc<void>("anvil_setBalance", [address, `0x${wei.toString(16)}`]);
  return {
    url,
    rpc,
    mine: (blocks = 1) => rpc<void>("anvil_mine", [`0x${blocks.toString(16)}`]),
    blockNumber: async () => Number(BigInt(await rpc<string>("eth_blockNumber"))),
    async fundedKey(ether = 10n) {
      const key = generatePrivateKey();
      await setBalance(privateKeyToAccount(key).address, ether * 10n ** 18n);
      return key;
    },
    setBalance,
    async pendingFrom(address) {
      const content = await rpc<{ pending: Record<string, Record<string, { hash: string }>> }>("txpool_content");
      const entry = Object.entries(content.pending).find(([from]) => from.toLowerCase() === address.toLowerCase());
      return entry ? Object.values(entry[1]).map((tx) => tx.hash) : [];
    },
    async stop() {
      if (exited) return;
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await done;
    },
  };
}
