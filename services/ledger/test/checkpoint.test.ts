import { createHash } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { canonicalJson } from "../src/domain/canonical-json.js";
import { ledger as ledgerService } from "../src/service.js";
import { createTestLedger, PUBLIC_URL, sha256Hex, type TestLedger } from "./test-ledger.js";

const sha256 = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), createHash("sha256")).digest();

/**
 * An independent RFC 9162 §2.1.3.2 verifier written against the RFC, sharing no code with the
 * ledger: the leaf is rebuilt from the record alone.
 */
function verifyRecordProof(
  record: { objectId: string; digest: string; sequence: bigint; recordedAt: Date },
  proof: string[],
  treeSize: number,
  rootHash: string,
): boolean {
  const entry = canonicalJson({
    created_at: record.recordedAt.toISOString(),
    kind: "notarization",
    payload: { digest: record.digest, object_id: record.objectId },
    sequence: Number(record.sequence),
  });
  let r = sha256(Buffer.from([0]), Buffer.from(entry, "utf8"));
  let fn = Number(record.sequence);
  let sn = treeSize - 1;
  if (fn > sn) return false;
  for (const hex of proof) {
    const p = Buffer.from(hex, "hex");
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = sha256(Buffer.from([1]), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.toString("hex") === rootHash;
}

describe("checkpoints and inclusion proofs", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("proves a record against a signed checkpoint whose JWS verifies with the published key", async () => {
    const notarized = [];
    for (let i = 0; i < 7; i++) notarized.push(await ledger.client.notarize({ digest: sha256Hex(`batch ${i}`) }));
    const target = notarized[4]!;
    const record = await ledger.client.getRecord({ objectId: target.objectId });
    const checkpoint = record.checkpoint!;
    expect(Number(checkpoint.treeSize)).toBeGreaterThan(Number(target.sequence));
    expect(record.inclusionProof.length).toBeGreaterThan(0);
    expect(
      verifyRecordProof(
        { ...record, recordedAt: timestampDate(record.recordedAt!) },
        record.inclusionProof,
        Number(checkpoint.treeSize),
        checkpoint.rootHash,
      ),
    ).toBe(true);
    expect(
      verifyRecordProof(
        { ...record, digest: sha256Hex("forged"), recordedAt: timestampDate(record.recordedAt!) },
        record.inclusionProof,
        Number(checkpoint.treeSize),
        checkpoint.rootHash,
      ),
    ).toBe(false);

    const { checkpoint: latest, publicJwkJson } = await ledger.client.getCheckpoint({});
    const publicJwk = JSON.parse(publicJwkJson);
    expect(publicJwk).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: expect.any(String),
      kid: expect.any(String),
      alg: "EdDSA",
      use: "sig",
    });
    expect(latest).toEqual(checkpoint);
    const { payload, protectedHeader } = await jwtVerify(checkpoint.signatureJws, await importJWK(publicJwk, "EdDSA"), {
      algorithms: ["EdDSA"],
      typ: "ledger-checkpoint+jwt",
      issuer: PUBLIC_URL,
    });
    expect(protectedHeader).toEqual({ alg: "EdDSA", typ: "ledger-checkpoint+jwt", kid: publicJwk.kid });
    expect(payload).toEqual({
      tree_size: Number(checkpoint.treeSize),
      root_hash: checkpoint.rootHash,
      created_at: timestampDate(checkpoint.createdAt!).toISOString(),
      iss: PUBLIC_URL,
      iat: Math.floor(timestampDate(checkpoint.createdAt!).getTime() / 1000),
    });
  });

  it("keeps proving older records against newer checkpoints", async () => {
    const first = await ledger.client.notarize({ digest: sha256Hex("early") });
    const early = await ledger.client.getRecord({ objectId: first.objectId });
    for (let i = 0; i < 5; i++) await ledger.client.notarize({ digest: sha256Hex(`late ${i}`) });
    await ledger.dependencies.checkpointing.refresh();
    const later = await ledger.client.getRecord({ objectId: first.objectId });
    expect(Number(later.checkpoint!.treeSize)).toBeGreaterThan(Number(early.checkpoint!.treeSize));
    expect(
      verifyRecordProof(
        { ...later, recordedAt: timestampDate(later.recordedAt!) },
        later.inclusionProof,
        Number(later.checkpoint!.treeSize),
        later.checkpoint!.rootHash,
      ),
    ).toBe(true);
  });

  it("signs a checkpoint only when the log grew", async () => {
    const a = await ledger.dependencies.checkpointing.refresh();
    const b = await ledger.dependencies.checkpointing.refresh();
    expect(b).toEqual(a);
    await ledger.client.notarize({ digest: sha256Hex("growth") });
    const c = await ledger.dependencies.checkpointing.refresh();
    expect(c.treeSize).toBe(a.treeSize + 1);
  });

  it("signs concurrent on-demand checkpoints once per tree size", async () => {
    const notarized = await ledger.client.notarize({ digest: sha256Hex("burst") });
    const records = await Promise.all(
      Array.from({ length: 8 }, () => ledger.client.getRecord({ objectId: notarized.objectId })),
    );
    expect(new Set(records.map((r) => r.checkpoint!.signatureJws)).size).toBe(1);
  });
});

describe("the background checkpointer", () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await createTestLedger({ LEDGER_CHECKPOINT_ON_READ: "false", LEDGER_CHECKPOINT_INTERVAL_MS: "20" });
  });
  afterAll(async () => {
    await ledger.close();
  });

  it("without on-read checkpoints, returns a record without proof until a checkpoint covers it", async () => {
    const notarized = await ledger.client.notarize({ digest: sha256Hex("pending") });
    const record = await ledger.client.getRecord({ objectId: notarized.objectId });
    expect(record.checkpoint).toBeUndefined();
    expect(record.inclusionProof).toEqual([]);
  });

  it("covers new entries on its own, from init, and stops when asked", async () => {
    // The checkpointer's timers are vitest's (waitFor moves them on each check): after stop, running
    // every pending timer shows whether a tick would still come, without a window of real time.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const checkpointing = ledger.dependencies.checkpointing;
    const refresh = checkpointing.refresh;
    try {
      const stop = await ledgerService.definition.init!(ledger.context);
      if (!stop) throw new Error("init returns the checkpointer's stop function");
      const notarized = await ledger.client.notarize({ digest: sha256Hex("background") });
      await vi.waitFor(
        async () => {
          const record = await ledger.client.getRecord({ objectId: notarized.objectId });
          expect(Number(record.checkpoint?.treeSize ?? 0)).toBeGreaterThan(Number(notarized.sequence));
        },
        { timeout: 5000, interval: 20 },
      );
      await stop();
      let refreshesAfterStop = 0;
      checkpointing.refresh = () => {
        refreshesAfterStop += 1;
        return refresh.call(checkpointing);
      };
      const size = (await checkpointing.latest())!.treeSize;
      // An append wakes a running checkpointer; the idle interval would bring a tick in any case.
      await ledger.client.notarize({ digest: sha256Hex("after stop") });
      await vi.runOnlyPendingTimersAsync();
      expect(refreshesAfterStop).toBe(0);
      expect((await checkpointing.latest())!.treeSize).toBe(size);
    } finally {
      checkpointing.refresh = refresh;
      vi.useRealTimers();
    }
  });

  it("backs off while the log stands still and is woken by this process's append", async () => {
    const idle = await createTestLedger({
      LEDGER_CHECKPOINT_ON_READ: "false",
      LEDGER_CHECKPOINT_INTERVAL_MS: "20",
      LEDGER_CHECKPOINT_IDLE_INTERVAL_MS: "3600000",
    });
    let refreshes = 0;
    const checkpointing = idle.dependencies.checkpointing;
    const refresh = checkpointing.refresh.bind(checkpointing);
    checkpointing.refresh = async () => {
      const latest = await refresh();
      refreshes += 1;
      return latest;
    };
    const stop = await ledgerService.definition.init!(idle.context);
    try {
      // The first pass signs the empty log, the second finds it unchanged: the next is an hour away.
      await vi.waitFor(() => expect(refreshes).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 20 });
      const notarized = await idle.client.notarize({ digest: sha256Hex("wakes the checkpointer") });
      await vi.waitFor(
        async () => {
          const latest = await checkpointing.latest();
          expect(Number(latest?.treeSize ?? 0)).toBeGreaterThan(Number(notarized.sequence));
        },
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await stop?.();
      await idle.close();
    }
  });
});
