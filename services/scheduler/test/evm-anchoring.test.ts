import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import {
  parseAnchoredReference,
  runNotarizationShow,
  runNotarizationVerify,
  verifyAnchoredReference,
} from "@attesto/cli";
import { notaryV1 } from "@attesto/proto";
import { decodeAnchorCalldata } from "@attesto/protocol";
import { Code, ConnectError } from "@connectrpc/connect";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvmChain } from "../src/clients/evm-chain.js";
import type { EvmChain } from "../src/domain/ports.js";
import { ANVIL_CHAIN_ID, type Anvil, startAnvil } from "./support/anvil.js";
import { type RpcSwitch, startRpcSwitch } from "./support/rpc-switch.js";
import {
  newCredentialId,
  sha256Hex,
  startTestScheduler,
  type TestScheduler,
  waitFor,
} from "./support/test-scheduler.js";

const { NotarizationState } = notaryV1;
const CLI = resolve(import.meta.dirname, "../../../cli/bin/attesto.js");
const CONFIRMATIONS = 2;

/**
 * LEDGER_BACKEND=evm against a real anvil node (from npm) with manual mining: blocks appear only
 * when a test mines them, so every step waits on a condition of the chain or the scheduler.
 * Each test has its own signer key, so nonces never interfere.
 */
describe("EVM anchoring (anvil)", () => {
  let anvil: Anvil;
  const opened: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    for (const resource of opened.reverse()) await resource.close();
    await anvil?.stop();
  });

  async function evmScheduler(
    key: `0x${string}`,
    options: { env?: Record<string, string>; rpcUrl?: string; wrap?: (chain: EvmChain) => EvmChain } = {},
  ): Promise<TestScheduler> {
    const rpcUrl = options.rpcUrl ?? anvil.url;
    const chain = createEvmChain({
      rpcUrl,
      chainId: ANVIL_CHAIN_ID,
      signerKey: key,
      gasLimit: 60_000n,
      timeoutMs: 2_000,
    });
    const scheduler = await startTestScheduler(
      {
        LEDGER_BACKEND: "evm",
        EVM_RPC_URL: rpcUrl,
        EVM_CHAIN_ID: String(ANVIL_CHAIN_ID),
        EVM_SIGNER_KEY: key,
        EVM_CONFIRMATIONS: String(CONFIRMATIONS),
        EVM_CONFIRMATION_WAIT_MS: "20000",
        EVM_POLLING_INTERVAL_MS: "50",
        NOTARY_BATCH_MAX_SIZE: "1",
        NOTARY_BATCH_INTERVAL_MS: "600000",
        ...options.env,
      },
      { evmChain: options.wrap ? options.wrap(chain) : chain },
    );
    opened.push(scheduler);
    await scheduler.start();
    return scheduler;
  }

  const enqueue = (scheduler: TestScheduler, label: string = newCredentialId()) =>
    scheduler.notary.enqueueNotarization({ tenant: "acme", credentialId: newCredentialId(), digest: sha256Hex(label) });

  const notarizationOf = async (scheduler: TestScheduler, objectId: string) =>
    (await scheduler.admin.getNotarization({ objectId })).notarization!;

  const anchored = (scheduler: TestScheduler, objectId: string) =>
    waitFor(
      async () => {
        const n = await notarizationOf(scheduler, objectId);
        return n.state === NotarizationState.ANCHORED && n;
      },
      30_000,
      `${objectId} anchored`,
    );

  const dead = (scheduler: TestScheduler, objectId: string) =>
    waitFor(
      async () => {
        const { notarizations } = await scheduler.admin.listNotarizations({ state: NotarizationState.DEAD, limit: 50 });
        return notarizations.find((n) => n.objectId === objectId);
      },
      30_000,
      `${objectId} dead-lettered`,
    );

  /** A scrape shows the dead letter and the failed attempts that led to it (NOTARY_RETRY_MAX_ATTEMPTS 2). */
  const expectDeadInMetrics = async (scheduler: TestScheduler) => {
    const scraped = await scheduler.metrics();
    expect(scraped).toMatch(/^notary_notarizations\{state="dead",service="scheduler"\} 1$/m);
    expect(scraped).toMatch(/^notary_anchor_attempts_total\{result="failed",service="scheduler"\} 1$/m);
    expect(scraped).toMatch(/^notary_anchor_attempts_total\{result="dead",service="scheduler"\} 1$/m);
    // Still behind (AttestoAnchoringBehind): a dead letter keeps the oldest unanchored age growing.
    expect(scraped).toMatch(/^notary_oldest_unanchored_seconds\{service="scheduler"\} (?!0$)[0-9.e+-]+$/m);
  };

  /** Waits until exactly `count` transactions of `address` are in the pool; returns their hashes. */
  const pending = (address: string, count = 1) =>
    waitFor(
      async () => {
        const hashes = await anvil.pendingFrom(address);
        return hashes.length === count && hashes;
      },
      30_000,
      `${count} pending transaction(s) of ${address}`,
    );

  /** Every anchoring transaction of `address` on the canonical chain, by batch id. */
  async function anchorsOnChain(address: string): Promise<Map<string, string[]>> {
    const byBatch = new Map<string, string[]>();
    const latest = await anvil.blockNumber();
    for (let number = 0; number <= latest; number++) {
      const block = await anvil.rpc<{ transactions: Array<{ hash: string; from: string; input: string }> }>(
        "eth_getBlockByNumber",
        [`0x${number.toString(16)}`, true],
      );
      for (const tx of block.transactions) {
        const carried = tx.from.toLowerCase() === address.toLowerCase() && decodeAnchorCalldata(tx.input);
        if (carried) byBatch.set(carried.batchId, [...(byBatch.get(carried.batchId) ?? []), tx.hash]);
      }
    }
    return byBatch;
  }

  /** The batch is on the chain in exactly one transaction: `hash`. */
  async function expectAnchoredOnce(address: string, batchId: string, hash: string) {
    expect((await anchorsOnChain(address)).get(batchId)).toEqual([hash]);
  }

  async function notarizedEvent(scheduler: TestScheduler, objectId: string) {
    const rows = await scheduler.db
      .selectFrom("webhook_events")
      .select("body")
      .where("type", "=", "credential.notarized")
      .execute();
    const row = rows.find((r) => r.body.includes(objectId));
    if (!row) throw new Error("no credential.notarized event");
    return JSON.parse(row.body) as { data: Record<string, unknown> & { reference: Record<string, unknown> } };
  }

  it("anchors a batch root in one transaction after the confirmations; the CLI verifies it from the chain alone", async () => {
    const key = await anvil.fundedKey();
    const address = privateKeyToAccount(key).address;
    const scheduler = await evmScheduler(key, { env: { NOTARY_BATCH_MAX_SIZE: "3" } });
    const references = await Promise.all([1, 2, 3].map((i) => enqueue(scheduler, `jwt ${i}`)));
    expect(references.map((r) => r.chain)).toEqual(Array(3).fill(`eip155:${ANVIL_CHAIN_ID}`));

    const [hash] = (await pending(address)) as [string];
    expect(await scheduler.deps.notarizations.oldestUnanchoredAt()).toBeInstanceOf(Date);
    await anvil.mine(1);
    const block = await anvil.blockNumber();
    // One confirmation of two: not anchored whatever the scheduler has seen.
    expect((await notarizationOf(scheduler, references[0]!.objectId)).state).not.toBe(NotarizationState.ANCHORED);
    await anvil.mine(1);

    for (const reference of references) {
      const n = await anchored(scheduler, reference.objectId);
      expect(n.anchor).toBeUndefined();
      expect(n.evmAnchor).toMatchObject({
        chain: `eip155:${ANVIL_CHAIN_ID}`,
        chainId: BigInt(ANVIL_CHAIN_ID),
        transactionHash: hash,
        blockNumber: BigInt(block),
        from: address,
        to: address,
        confirmations: CONFIRMATIONS,
      });
    }
    expect(await scheduler.deps.notarizations.oldestUnanchoredAt()).toBeUndefined();
    const first = await notarizationOf(scheduler, references[0]!.objectId);
    const transaction = await anvil.rpc<{ input: string; to: string }>("eth_getTransactionByHash", [hash]);
    expect(decodeAnchorCalldata(transaction.input)).toEqual({ root: first.batch?.root, batchId: first.batch?.batchId });
    await expectAnchoredOnce(address, first.batch!.batchId, hash);

    // The webhook event's reference names the chain id, transaction and block.
    const event = await notarizedEvent(scheduler, first.objectId);
    expect(event.data.reference).toEqual({
      chain: `eip155:${ANVIL_CHAIN_ID}`,
      object_id: first.objectId,
      chain_id: ANVIL_CHAIN_ID,
      transaction_hash: hash,
      block_number: block,
    });
    expect(event.data).toHaveProperty("evm.from", address);
    expect(event.data).not.toHaveProperty("ledger");

    // The real CLI, as anyone would run it: no platform, only the chain's RPC endpoint.
    const dir = mkdtempSync(join(tmpdir(), "attesto-evm-"));
    const file = join(dir, "event.json");
    writeFileSync(file, JSON.stringify(event));
    const ok = await promisify(execFile)(process.execPath, [
      CLI,
      "notarization",
      "verify",
      file,
      "--rpc-url",
      anvil.url,
      "--confirmations",
      String(CONFIRMATIONS),
    ]);
    expect(ok.stdout).toMatch(
      new RegExp(`^verified: .*transaction ${hash}, block ${block} of eip155:${ANVIL_CHAIN_ID}`),
    );

    const tampered = structuredClone(event);
    tampered.data.salt = sha256Hex("another salt");
    writeFileSync(file, JSON.stringify(tampered));
    // The command's own code in process (the binary's start-up is slow on a loaded machine).
    const errors: string[] = [];
    const code = await runNotarizationVerify(
      { positionals: [file], rpcUrl: anvil.url, confirmations: undefined },
      { out: () => {}, err: (line) => errors.push(line) },
    );
    expect({ code, errors }).toEqual({
      code: 1,
      errors: ["not verified: salted_digest is not SHA-256(salt || digest)"],
    });

    // The operator's export (GetNotarization) is the same reference, and verifies the same way.
    const shown: string[] = [];
    const io = { out: (line: string) => shown.push(line), err: (line: string) => shown.push(`err ${line}`) };
    expect(await runNotarizationShow([first.objectId], scheduler.admin, io)).toBe(0);
    const exported = parseAnchoredReference(shown.join("\n"));
    expect(exported).toEqual(parseAnchoredReference(JSON.stringify(event)));
    expect(
      (await verifyAnchoredReference(exported, { rpcUrl: anvil.url, confirmations: CONFIRMATIONS })).failures,
    ).toEqual([]);
    // Not anchored on a chain (unknown id): exit 1.
    expect(await runNotarizationShow(["00000000-0000-4000-8000-000000000000"], scheduler.admin, io)).toBe(1);

    // In process (same code): wrong block, and more confirmations than the chain has.
    const wrongBlock = structuredClone(event.data);
    wrongBlock.reference.block_number = block + 1;
    expect(
      (
        await verifyAnchoredReference(parseAnchoredReference(JSON.stringify(wrongBlock)), {
          rpcUrl: anvil.url,
          confirmations: 10,
        })
      ).failures,
    ).toEqual([
      `the transaction is in block ${block}, not ${block + 1}`,
      "the transaction has 2 confirmations, fewer than 10",
    ]);
  }, 180_000); // the real CLI's start-up (tsx) takes most of it on a loaded machine

  it("RPC down: attempts fail and dead-letter, nothing is sent; back up, an operator retry anchors once", async () => {
    const key = await anvil.fundedKey();
    const address = privateKeyToAccount(key).address;
    const rpc: RpcSwitch = await startRpcSwitch(anvil.url);
    opened.push(rpc);
    rpc.down = true;
    const scheduler = await evmScheduler(key, { rpcUrl: rpc.url, env: { NOTARY_RETRY_MAX_ATTEMPTS: "2" } });
    // The issuer's "ledger must be reachable" enqueue: refused as Unavailable, nothing enqueued.
    const refused = await scheduler.notary
      .enqueueNotarization({
        tenant: "acme",
        credentialId: newCredentialId(),
        digest: sha256Hex("refused"),
        requireLedgerReachable: true,
      })
      .catch((error: unknown) => ConnectError.from(error));
    expect(refused).toMatchObject({ code: Code.Unavailable, rawMessage: "Ledger is unavailable" });
    const { objectId } = await enqueue(scheduler);

    const letter = await dead(scheduler, objectId);
    expect(letter.lastError).toBe("EVM RPC endpoint could not be reached");
    expect((await scheduler.deps.notarizations.countByState()).dead).toBe(1);
    await expectDeadInMetrics(scheduler);
    expect(await scheduler.db.selectFrom("evm_transactions").selectAll().execute()).toEqual([]);

    rpc.down = false;
    await scheduler.admin.retryDeadJobs({ objectIds: [objectId] });
    const [hash] = (await pending(address)) as [string];
    // Down again after the broadcast: the mined transaction is found once the endpoint answers.
    rpc.down = true;
    await anvil.mine(CONFIRMATIONS);
    await dead(scheduler, objectId);
    rpc.down = false;
    await scheduler.admin.retryDeadJobs({ objectIds: [objectId] });
    const n = await anchored(scheduler, objectId);
    expect(n.evmAnchor?.transactionHash).toBe(hash);
    await expectAnchoredOnce(address, n.batch!.batchId, hash);
  });

  it("a dropped transaction is broadcast again (same transaction) and anchored once", async () => {
    const key = await anvil.fundedKey();
    const address = privateKeyToAccount(key).address;
    const scheduler = await evmScheduler(key);
    const { objectId } = await enqueue(scheduler);
    const [hash] = (await pending(address)) as [string];
    await anvil.rpc("anvil_dropTransaction", [hash]);
    expect(await pending(address)).toEqual([hash]);
    await anvil.mine(CONFIRMATIONS);
    const n = await anchored(scheduler, objectId);
    expect(n.evmAnchor?.transactionHash).toBe(hash);
    await expectAnchoredOnce(address, n.batch!.batchId, hash);
  });

  it("a transaction replaced by another with its nonce: a new nonce once that one is confirmed, anchored once", async () => {
    const key = await anvil.fundedKey();
    const account = privateKeyToAccount(key);
    const scheduler = await evmScheduler(key);
    const { objectId } = await enqueue(scheduler);
    const [ours] = (await pending(account.address)) as [string];
    const { nonce } = await anvil.rpc<{ nonce: string }>("eth_getTransactionByHash", [ours]);
    const foreign = await anvil.rpc<string>("eth_sendRawTransaction", [
      await account.signTransaction({
        type: "eip1559",
        chainId: ANVIL_CHAIN_ID,
        nonce: Number(BigInt(nonce)),
        to: privateKeyToAccount(generatePrivateKey()).address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: 10n ** 12n,
        maxPriorityFeePerGas: 10n ** 11n,
      }),
    ]);
    expect(await pending(account.address)).toEqual([foreign]);
    await anvil.mine(CONFIRMATIONS);

    const [replacement] = (await pending(account.address)) as [string];
    expect(replacement).not.toBe(ours);
    await anvil.mine(CONFIRMATIONS);
    const n = await anchored(scheduler, objectId);
    expect(n.evmAnchor?.transactionHash).toBe(replacement);
    await expectAnchoredOnce(account.address, n.batch!.batchId, replacement);
  });

  it("a reorg below the confirmation depth: not anchored from the lost block; broadcast again and anchored once", async () => {
    const key = await anvil.fundedKey();
    const address = privateKeyToAccount(key).address;
    const scheduler = await evmScheduler(key);
    const { objectId } = await enqueue(scheduler);
    const [hash] = (await pending(address)) as [string];
    await anvil.mine(1);
    const lost = await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["latest", false]);
    await anvil.rpc("anvil_reorg", [1, []]);
    expect((await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["latest", false])).hash).not.toBe(lost.hash);

    expect(await pending(address)).toEqual([hash]);
    expect((await notarizationOf(scheduler, objectId)).state).not.toBe(NotarizationState.ANCHORED);
    await anvil.mine(CONFIRMATIONS);
    const n = await anchored(scheduler, objectId);
    expect(n.evmAnchor?.transactionHash).toBe(hash);
    expect(n.evmAnchor?.blockHash).not.toBe(lost.hash);
    await expectAnchoredOnce(address, n.batch!.batchId, hash);
  });

  it("a nonce gap after a crash between storing and broadcasting: the next batch sends the lost one again; both anchored once", async () => {
    const key = await anvil.fundedKey();
    const address = privateKeyToAccount(key).address;
    let crashes = 1;
    const scheduler = await evmScheduler(key, {
      env: { NOTARY_RETRY_MAX_ATTEMPTS: "1" },
      wrap: (chain) => ({
        ...chain,
        chainId: chain.chainId,
        from: chain.from,
        to: chain.to,
        probe: () => chain.probe(),
        async broadcast(raw) {
          // The process stops after the signed transaction is stored, before it reaches the node.
          if (crashes-- > 0) throw new Error("worker stopped before the broadcast");
          return chain.broadcast(raw);
        },
      }),
    });
    const a = await enqueue(scheduler);
    const letter = await dead(scheduler, a.objectId);
    expect(letter.lastError).toBe("worker stopped before the broadcast");
    expect(await anvil.pendingFrom(address)).toEqual([]);

    const b = await enqueue(scheduler);
    // b's transaction (next nonce) waits behind a's; b's attempt sends a's stored transaction again.
    await pending(address, 2);
    await anvil.mine(CONFIRMATIONS);
    const nb = await anchored(scheduler, b.objectId);
    expect((await notarizationOf(scheduler, a.objectId)).state).toBe(NotarizationState.DEAD);

    await scheduler.admin.retryDeadJobs({ objectIds: [a.objectId] });
    const na = await anchored(scheduler, a.objectId);
    expect(await anvil.pendingFrom(address)).toEqual([]);
    await expectAnchoredOnce(address, na.batch!.batchId, na.evmAnchor!.transactionHash);
    await expectAnchoredOnce(address, nb.batch!.batchId, nb.evmAnchor!.transactionHash);
  });

  it("an underfunded signer: attempts fail and dead-letter; once funded, an operator retry anchors once", async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    const scheduler = await evmScheduler(key, { env: { NOTARY_RETRY_MAX_ATTEMPTS: "2" } });
    const { objectId } = await enqueue(scheduler);
    const letter = await dead(scheduler, objectId);
    expect(letter.lastError).toBe("the signer cannot pay for the anchoring transaction (insufficient funds)");
    expect((await scheduler.deps.notarizations.countByState()).dead).toBe(1);
    await expectDeadInMetrics(scheduler);

    await anvil.setBalance(address, 10n ** 18n);
    await scheduler.admin.retryDeadJobs({ objectIds: [objectId] });
    const [hash] = (await pending(address)) as [string];
    await anvil.mine(CONFIRMATIONS);
    const n = await anchored(scheduler, objectId);
    expect(n.evmAnchor?.transactionHash).toBe(hash);
    await expectAnchoredOnce(address, n.batch!.batchId, hash);
  });
});
