import type { TestDatabase } from "@attesto/store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { planBatch } from "../src/domain/cut-batches.js";
import type { LedgerAnchor } from "../src/domain/model.js";
import type { BatchPlan, NotarizationStore, PendingLeaf } from "../src/domain/ports.js";
import { createNotarizationStore } from "../src/store/notarization.store.js";
import type { SchedulerTables } from "../src/store/tables.js";
import {
  newEvent,
  newNotarization,
  RecordingJobSender,
  startStoreDatabase,
  TestClock,
} from "./support/store-fixtures.js";

const anchorOf = (root: string): LedgerAnchor => ({
  objectId: "ledger-object",
  chain: "attesto-ledger",
  sequence: 7,
  recordedAt: "2026-01-01T00:00:00Z",
  checkpoint: { treeSize: 8, rootHash: root, createdAt: "2026-01-01T00:00:00Z", signatureJws: "jws" },
  inclusionProof: [],
});

let database: TestDatabase<SchedulerTables>;
let jobs: RecordingJobSender;
let clock: TestClock;
let store: NotarizationStore;

beforeAll(async () => {
  database = await startStoreDatabase();
});
afterAll(() => database.drop());
beforeEach(async () => {
  // Each test starts from empty tables: pending rows of one test would join another's batch.
  await database.db.deleteFrom("webhook_events").execute();
  await database.db.deleteFrom("notarizations").execute();
  await database.db.deleteFrom("batches").execute();
  jobs = new RecordingJobSender();
  clock = new TestClock();
  store = createNotarizationStore(database.db as never, jobs.send, clock.now);
});

/** Cuts one batch with the real planner; returns its plan (undefined when none was due). */
async function cut(maxSize: number, intervalMs: number): Promise<BatchPlan | undefined> {
  let planned: BatchPlan | undefined;
  await store.cutBatch(maxSize, intervalMs, (leaves) => {
    planned = planBatch(leaves, maxSize);
    return planned;
  });
  return planned;
}

describe("notarizations", () => {
  it("inserts once per credential id and answers the stored record to a repeated insert", async () => {
    const first = await store.insertNotarization(newNotarization({ tenant: "acme", offerId: "offer-1" }));
    const again = await store.insertNotarization(newNotarization({ credentialId: first.credentialId }));
    expect(again.objectId).toBe(first.objectId);
    expect(again.digest).toBe(first.digest);
    expect(first).toMatchObject({ state: "pending", offerId: "offer-1", batch: undefined, attempts: 0 });
    // Written in the service's clock (a year ahead of the database's here), not the database's.
    expect(first.createdAt).toEqual(clock.now());
    expect(await store.findNotarizationByCredential(first.credentialId)).toEqual(first);
    expect(await store.findNotarization(first.objectId)).toEqual(first);
    expect(await store.findNotarization("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });

  it("lists by tenant and state, newest first", async () => {
    const a = await store.insertNotarization(newNotarization({ tenant: "acme" }));
    clock.advance(1000);
    const b = await store.insertNotarization(newNotarization({ tenant: "acme" }));
    await store.insertNotarization(newNotarization({ tenant: "other" }));
    const listed = await store.listNotarizations({ tenant: "acme", limit: 10 });
    expect(listed.map((n) => n.objectId)).toEqual([b.objectId, a.objectId]);
    expect(await store.listNotarizations({ tenant: "acme", state: "anchored", limit: 10 })).toEqual([]);
    expect(await store.listNotarizations({ limit: 1 })).toHaveLength(1);
  });
});

describe("batch planning", () => {
  it("cuts nothing while fewer than the maximum wait less than the interval", async () => {
    await store.insertNotarization(newNotarization());
    const seen: PendingLeaf[][] = [];
    const made = await store.cutBatch(4, 60_000, (leaves) => {
      seen.push(leaves);
      return planBatch(leaves, 4);
    });
    expect(made).toBe(false);
    expect(seen).toEqual([[expect.objectContaining({ due: false })]]);
    expect(jobs.jobs).toEqual([]);
  });

  it("cuts a full batch at once, oldest first, and queues its anchor job under the batch's job id", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await store.insertNotarization(newNotarization())).objectId);
      clock.advance(1000);
    }
    const plan = await cut(4, 60_000);
    expect(plan?.leaves.map((leaf) => leaf.objectId)).toEqual(ids.slice(0, 4));
    const batchRow = await database.db.selectFrom("batches").selectAll().executeTakeFirstOrThrow();
    expect(batchRow).toMatchObject({ batch_id: plan?.batchId, size: 4, state: "pending", attempts: 0 });
    expect(jobs.on("anchor-batch")).toEqual([
      { job: { queue: "anchor-batch", data: { batchId: plan?.batchId } }, id: batchRow.job_id, delayMs: undefined },
    ]);
    const members = await store.listBatchNotarizations(plan?.batchId ?? "");
    expect(members.map((n) => [n.objectId, n.batch?.leafIndex, n.batch?.treeSize, n.batch?.root])).toEqual(
      ids.slice(0, 4).map((id, index) => [id, index, 4, plan?.root]),
    );
    expect(members[1]?.batch?.inclusionProof).toEqual(plan?.leaves[1]?.inclusion.inclusionProof);
    // The fifth waits: alone and fresh.
    expect(await cut(4, 60_000)).toBeUndefined();
  });

  it("cuts a partial batch once its oldest leaf has waited the interval", async () => {
    await store.insertNotarization(newNotarization());
    clock.advance(5_000);
    await store.insertNotarization(newNotarization());
    const plan = await cut(4, 1_000);
    expect(plan?.leaves).toHaveLength(2);
  });

  it("skips the rows another replica is cutting, so no leaf lands in two batches", async () => {
    for (let i = 0; i < 3; i++) await store.insertNotarization(newNotarization());
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstLocked: () => void = () => {};
    const locked = new Promise<void>((resolve) => {
      firstLocked = resolve;
    });
    const other = createNotarizationStore(database.db as never, jobs.send, clock.now);
    const first = other.cutBatch(2, 0, (leaves) => {
      firstLocked();
      return planBatch(leaves, 2);
    });
    // The first cutter holds its two rows until `held` resolves, through a plan that waits.
    const firstDone = first.then(async (made) => {
      await held;
      return made;
    });
    await locked;
    const secondSaw: PendingLeaf[][] = [];
    await store.cutBatch(2, 0, (leaves) => {
      secondSaw.push(leaves);
      return planBatch(leaves, 2);
    });
    release();
    expect(await firstDone).toBe(true);
    const batched = await database.db
      .selectFrom("notarizations")
      .select(["batch_id"])
      .where("batch_id", "is not", null)
      .execute();
    expect(batched).toHaveLength(3);
    const perBatch = new Map<string, number>();
    for (const row of batched) perBatch.set(row.batch_id ?? "", (perBatch.get(row.batch_id ?? "") ?? 0) + 1);
    expect([...perBatch.values()].sort()).toEqual([1, 2]);
    expect(secondSaw.flat().length).toBeLessThanOrEqual(3);
  });

  it("rolls the batch back when its anchor job cannot be queued", async () => {
    await store.insertNotarization(newNotarization());
    jobs.failNext = true;
    await expect(cut(1, 0)).rejects.toThrow("job queue unavailable");
    expect(await database.db.selectFrom("batches").selectAll().execute()).toEqual([]);
    const [row] = await database.db.selectFrom("notarizations").select("batch_id").execute();
    expect(row?.batch_id).toBeNull();
    expect(await cut(1, 0)).toBeDefined();
  });
});

describe("batch attempts", () => {
  async function cutOne() {
    const notarization = await store.insertNotarization(newNotarization());
    const plan = await cut(1, 0);
    if (!plan) throw new Error("no batch cut");
    return { notarization, batchId: plan.batchId, jobId: jobs.last("anchor-batch").id };
  }

  it("lets only the batch's current job claim an attempt", async () => {
    const { batchId, jobId } = await cutOne();
    expect(await store.claimBatchAttempt(batchId, "00000000-0000-4000-8000-000000000000")).toBeUndefined();
    const claim = await store.claimBatchAttempt(batchId, jobId);
    expect(claim).toMatchObject({ attempt: 1, record: { batchId, state: "running", attempts: 1, jobId } });
  });

  it("schedules a failed attempt's retry under a new job and ignores stale outcomes", async () => {
    const { notarization, batchId, jobId } = await cutOne();
    const claim = await store.claimBatchAttempt(batchId, jobId);
    const retryAt = new Date(clock.now().getTime() + 60_000);
    expect(await store.recordBatchFailed(batchId, 2, "stale attempt", retryAt)).toBe(false);
    expect(await store.recordBatchFailed(batchId, claim?.attempt ?? 0, "ledger unavailable", retryAt)).toBe(true);
    const retry = jobs.last("anchor-batch");
    expect(retry.id).not.toBe(jobId);
    expect(retry.delayMs).toBe(60_000);
    expect(await store.findNotarization(notarization.objectId)).toMatchObject({
      state: "failed",
      attempts: 1,
      lastError: "ledger unavailable",
      nextAttemptAt: retryAt,
    });
    // The old job lost the batch; the new one claims attempt 2.
    expect(await store.claimBatchAttempt(batchId, jobId)).toBeUndefined();
    expect((await store.claimBatchAttempt(batchId, retry.id))?.attempt).toBe(2);
  });

  it("records the anchor and its events (once per dedupe key) in one step", async () => {
    const { notarization, batchId, jobId } = await cutOne();
    const claim = await store.claimBatchAttempt(batchId, jobId);
    const event = newEvent(clock.now(), { dedupeKey: `notarized:${notarization.objectId}` });
    const duplicate = newEvent(clock.now(), { dedupeKey: event.dedupeKey });
    const anchor = anchorOf("ab".repeat(32));
    expect(await store.recordBatchAnchored(batchId, claim?.attempt ?? 0, anchor, [event, duplicate])).toBe(true);
    expect(await store.recordBatchAnchored(batchId, claim?.attempt ?? 0, anchor, [event])).toBe(false);
    const stored = await store.findNotarization(notarization.objectId);
    expect(stored).toMatchObject({ state: "anchored", anchor, lastError: undefined });
    expect(stored?.anchoredAt).toEqual(clock.now());
    const events = await database.db.selectFrom("webhook_events").select(["event_id", "job_id"]).execute();
    expect(events).toEqual([{ event_id: event.eventId, job_id: expect.any(String) }]);
    expect(jobs.on("dispatch-webhook-event")).toEqual([
      {
        job: { queue: "dispatch-webhook-event", data: { eventId: event.eventId } },
        id: events[0]?.job_id,
        delayMs: undefined,
      },
    ]);
  });

  it("dead-letters a batch and retries dead batches of a tenant with a fresh round", async () => {
    const { notarization, batchId, jobId } = await cutOne();
    const claim = await store.claimBatchAttempt(batchId, jobId);
    const failed = newEvent(clock.now(), { type: "credential.notarization_failed" });
    expect(await store.recordBatchDead(batchId, claim?.attempt ?? 0, "gave up", [failed])).toBe(true);
    expect(await store.findNotarization(notarization.objectId)).toMatchObject({ state: "dead", lastError: "gave up" });
    expect(jobs.on("dispatch-webhook-event")).toHaveLength(1);

    expect(await store.retryDeadBatches({ tenant: "other" })).toEqual({ batches: 0, notarizations: 0 });
    expect(await store.retryDeadBatches({ tenant: "acme" })).toEqual({ batches: 1, notarizations: 1 });
    expect(await store.findNotarization(notarization.objectId)).toMatchObject({ state: "pending", attempts: 0 });
    const retry = jobs.last("anchor-batch");
    const row = await database.db.selectFrom("batches").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "pending", job_id: retry.id, dead_rounds: 1 });
    expect(await store.retryDeadBatches({})).toEqual({ batches: 0, notarizations: 0 });
  });

  it("retries only the batches of the given object ids", async () => {
    const one = await cutOne();
    const two = await cutOne();
    for (const { batchId, jobId } of [one, two]) {
      const claim = await store.claimBatchAttempt(batchId, jobId);
      await store.recordBatchDead(batchId, claim?.attempt ?? 0, "gave up", []);
    }
    expect(await store.retryDeadBatches({ objectIds: [two.notarization.objectId] })).toEqual({
      batches: 1,
      notarizations: 1,
    });
    expect((await store.findNotarization(one.notarization.objectId))?.state).toBe("dead");
    expect((await store.findNotarization(two.notarization.objectId))?.state).toBe("pending");
  });

  it("counts notarizations by the state callers see", async () => {
    const { batchId, jobId } = await cutOne();
    await store.claimBatchAttempt(batchId, jobId);
    await store.insertNotarization(newNotarization());
    expect(await store.countByState()).toEqual({ pending: 2 });
  });
});

describe("stranded batches", () => {
  it("lists active batches left alone too long and requeues each once", async () => {
    await store.insertNotarization(newNotarization());
    const plan = await cut(1, 0);
    const jobId = jobs.last("anchor-batch").id;
    expect(await store.listStranded(60_000)).toEqual([]);
    clock.advance(120_000);
    const stranded = await store.listStranded(60_000);
    expect(stranded).toEqual([{ kind: "batch", id: plan?.batchId, jobId }]);
    const [work] = stranded;
    if (!work) throw new Error("nothing stranded");
    expect(await store.requeue({ ...work, kind: "event" })).toBe(false);
    expect(await store.requeue(work)).toBe(true);
    const requeued = jobs.last("anchor-batch");
    expect(requeued.id).not.toBe(jobId);
    // A second reconciler with the same (now stale) listing does nothing, and the row is fresh again.
    expect(await store.requeue(work)).toBe(false);
    expect(await store.listStranded(60_000)).toEqual([]);
    expect((await store.claimBatchAttempt(plan?.batchId ?? "", requeued.id))?.attempt).toBe(1);
  });

  it("never lists anchored or dead batches", async () => {
    await store.insertNotarization(newNotarization());
    const plan = await cut(1, 0);
    const claim = await store.claimBatchAttempt(plan?.batchId ?? "", jobs.last("anchor-batch").id);
    await store.recordBatchAnchored(plan?.batchId ?? "", claim?.attempt ?? 0, anchorOf(plan?.root ?? ""), []);
    clock.advance(120_000);
    expect(await store.listStranded(60_000)).toEqual([]);
  });
});
