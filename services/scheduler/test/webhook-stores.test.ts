import { recordStatements, type TestDatabase } from "@attesto/store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { WebhookDeliveryStore, WebhookEventStore } from "../src/domain/ports.js";
import type { SchedulerTables } from "../src/store/tables.js";
import { createWebhookDeliveryStore } from "../src/store/webhook-delivery.store.js";
import { createWebhookEventStore } from "../src/store/webhook-event.store.js";
import { newEvent, RecordingJobSender, startStoreDatabase, TestClock } from "./support/store-fixtures.js";

let database: TestDatabase<SchedulerTables>;
let jobs: RecordingJobSender;
let clock: TestClock;
let events: WebhookEventStore;
let deliveries: WebhookDeliveryStore;

beforeAll(async () => {
  database = await startStoreDatabase();
});
afterAll(() => database.drop());
beforeEach(async () => {
  await database.db.deleteFrom("webhook_attempts").execute();
  await database.db.deleteFrom("webhook_deliveries").execute();
  await database.db.deleteFrom("webhook_events").execute();
  jobs = new RecordingJobSender();
  clock = new TestClock();
  events = createWebhookEventStore(database.db as never, jobs.send, jobs.insert, clock.now);
  deliveries = createWebhookDeliveryStore(database.db as never, jobs.send, clock.now);
});

/** An event dispatched to `urls`; answers the delivery jobs queued for it. */
async function dispatched(urls: string[], tenant = "acme") {
  const event = newEvent(clock.now(), { tenant });
  await events.insertEvent(event);
  await events.recordEventDispatched(event.eventId, urls);
  return { event, deliveryJobs: jobs.on("deliver-webhook").filter((queued) => queued.job.queue === "deliver-webhook") };
}

const deliveryIdOf = (queued: { job: { data: unknown } }) => (queued.job.data as { deliveryId: string }).deliveryId;

describe("webhook events", () => {
  it("inserts an event once per dedupe key and queues its dispatch", async () => {
    const event = newEvent(clock.now());
    expect(await events.insertEvent(event)).toBe(true);
    expect(await events.insertEvent({ ...newEvent(clock.now()), dedupeKey: event.dedupeKey })).toBe(false);
    expect(jobs.on("dispatch-webhook-event").map((queued) => queued.job.data)).toEqual([{ eventId: event.eventId }]);
    expect(await events.findEvent(event.eventId)).toEqual({
      eventId: event.eventId,
      tenant: event.tenant,
      type: event.type,
      body: event.body,
      createdAt: event.createdAt,
      dispatched: false,
    });
  });

  it("dispatches into one delivery per endpoint, once, even when dispatched twice", async () => {
    const event = newEvent(clock.now());
    await events.insertEvent(event);
    expect(
      await events.recordEventDispatched(event.eventId, ["https://a.example/hook", "https://b.example/hook"]),
    ).toBe(2);
    expect(await events.recordEventDispatched(event.eventId, ["https://a.example/hook"])).toBe(0);
    expect((await events.findEvent(event.eventId))?.dispatched).toBe(true);
    const rows = await database.db.selectFrom("webhook_deliveries").selectAll().orderBy("url").execute();
    expect(rows.map((row) => [row.url, row.state, row.event_type, row.tenant])).toEqual([
      ["https://a.example/hook", "pending", event.type, event.tenant],
      ["https://b.example/hook", "pending", event.type, event.tenant],
    ]);
    expect(
      jobs
        .on("deliver-webhook")
        .map((queued) => queued.id)
        .sort(),
    ).toEqual(rows.map((row) => row.job_id).sort());
    expect(await events.recordEventDispatched("00000000-0000-4000-8000-000000000000", ["https://a.example"])).toBe(0);
  });

  it("publishes an event and its dispatch job in one statement, without a transaction", async () => {
    const statements = recordStatements(database.pool);
    const event = newEvent(clock.now());
    const sent = await statements.during(async () => expect(await events.insertEvent(event)).toBe(true));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^\s*WITH new_event AS \(insert into "[a-z0-9_]+"\."webhook_events"/);
    expect(jobs.on("dispatch-webhook-event").map((queued) => queued.job.data)).toEqual([{ eventId: event.eventId }]);
  });

  it("stores no event whose dispatch job cannot be queued (one statement for both)", async () => {
    const event = newEvent(clock.now());
    jobs.failNext = true;
    await expect(events.insertEvent(event)).rejects.toThrow("job queue unavailable");
    expect(await events.findEvent(event.eventId)).toBeUndefined();
    expect(await events.insertEvent(event)).toBe(true);
    expect(jobs.on("dispatch-webhook-event").map((queued) => queued.job.data)).toEqual([{ eventId: event.eventId }]);
  });

  it("marks an event without endpoints dispatched in one statement, and no job runs it again", async () => {
    const event = newEvent(clock.now());
    await events.insertEvent(event);
    const statements = recordStatements(database.pool);
    expect(await statements.during(() => events.recordEventDispatched(event.eventId, []))).toHaveLength(1);
    expect(await events.findEvent(event.eventId)).toMatchObject({ dispatched: true });
    expect(await events.recordEventDispatched(event.eventId, ["https://a.example/hook"])).toBe(0);
    expect(jobs.on("deliver-webhook")).toEqual([]);
    clock.advance(120_000);
    expect(await events.listStranded(60_000)).toEqual([]);
  });

  it("rolls the dispatch back when a delivery job cannot be queued", async () => {
    const event = newEvent(clock.now());
    await events.insertEvent(event);
    jobs.failNext = true;
    await expect(events.recordEventDispatched(event.eventId, ["https://a.example/hook"])).rejects.toThrow(
      "job queue unavailable",
    );
    expect((await events.findEvent(event.eventId))?.dispatched).toBe(false);
    expect(await database.db.selectFrom("webhook_deliveries").selectAll().execute()).toEqual([]);
  });

  it("lists undispatched events left alone too long and requeues each once", async () => {
    const event = newEvent(clock.now());
    await events.insertEvent(event);
    const jobId = jobs.last("dispatch-webhook-event").id;
    expect(await events.listStranded(60_000)).toEqual([]);
    clock.advance(120_000);
    const [work] = await events.listStranded(60_000);
    expect(work).toEqual({ kind: "event", id: event.eventId, jobId });
    if (!work) throw new Error("nothing stranded");
    expect(await events.requeue({ ...work, kind: "delivery" })).toBe(false);
    expect(await events.requeue(work)).toBe(true);
    expect(await events.requeue(work)).toBe(false);
    expect(jobs.last("dispatch-webhook-event").id).not.toBe(jobId);
    await events.recordEventDispatched(event.eventId, []);
    expect(await events.listStranded(60_000)).toEqual([]);
  });
});

describe("webhook deliveries", () => {
  it("lets only the delivery's current job claim an attempt, with the event's fixed body", async () => {
    const { event, deliveryJobs } = await dispatched(["https://a.example/hook"]);
    const [queued] = deliveryJobs;
    if (!queued) throw new Error("no delivery queued");
    const deliveryId = deliveryIdOf(queued);
    expect(await deliveries.claimDeliveryAttempt(deliveryId, "00000000-0000-4000-8000-000000000000")).toBeUndefined();
    const claim = await deliveries.claimDeliveryAttempt(deliveryId, queued.id);
    expect(claim).toMatchObject({
      attempt: 1,
      record: {
        delivery: { deliveryId, state: "running", attempts: 1, url: "https://a.example/hook" },
        event: { eventId: event.eventId, body: event.body, type: event.type },
      },
    });
  });

  it("logs every attempt, retries a failure under a new job and ends delivered", async () => {
    const { deliveryJobs } = await dispatched(["https://a.example/hook"]);
    const [queued] = deliveryJobs;
    if (!queued) throw new Error("no delivery queued");
    const deliveryId = deliveryIdOf(queued);
    const first = await deliveries.claimDeliveryAttempt(deliveryId, queued.id);
    const retryAt = new Date(clock.now().getTime() + 60_000);
    const failure = {
      state: "failed",
      statusCode: 503,
      error: "endpoint answered HTTP 503",
      nextAttemptAt: retryAt,
    } as const;
    expect(await deliveries.recordDeliveryAttempt(deliveryId, 2, failure)).toBe(false);
    expect(await deliveries.recordDeliveryAttempt(deliveryId, first?.attempt ?? 0, failure)).toBe(true);
    const retry = jobs.last("deliver-webhook");
    expect(retry).toMatchObject({ job: { data: { deliveryId } }, delayMs: 60_000 });
    expect(retry.id).not.toBe(queued.id);
    expect(await deliveries.claimDeliveryAttempt(deliveryId, queued.id)).toBeUndefined();
    const second = await deliveries.claimDeliveryAttempt(deliveryId, retry.id);
    expect(second?.attempt).toBe(2);
    expect(
      await deliveries.recordDeliveryAttempt(deliveryId, 2, {
        state: "delivered",
        statusCode: 204,
        error: undefined,
        nextAttemptAt: undefined,
      }),
    ).toBe(true);
    const [listed] = await deliveries.listDeliveries({ tenant: "acme", limit: 10 });
    expect(listed).toMatchObject({ deliveryId, state: "delivered", attempts: 2, lastStatusCode: 204 });
    expect(listed?.deliveredAt).toEqual(clock.now());
    expect(listed?.createdAt).toEqual(clock.now());
    expect(listed?.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 503, "endpoint answered HTTP 503"],
      [2, 204, undefined],
    ]);
    expect(listed?.attemptLog.every((a) => a.startedAt.getTime() === clock.now().getTime())).toBe(true);
    expect(listed?.attemptLog.every((a) => a.finishedAt?.getTime() === clock.now().getTime())).toBe(true);
    expect(jobs.on("deliver-webhook")).toHaveLength(2);
  });

  it("filters the delivery log by tenant, event and state", async () => {
    const mine = await dispatched(["https://a.example/hook", "https://b.example/hook"], "acme");
    await dispatched(["https://a.example/hook"], "other");
    expect(await deliveries.listDeliveries({ tenant: "acme", limit: 10 })).toHaveLength(2);
    expect(await deliveries.listDeliveries({ eventId: mine.event.eventId, limit: 1 })).toHaveLength(1);
    expect(await deliveries.listDeliveries({ tenant: "other", state: "pending", limit: 10 })).toHaveLength(1);
    expect(await deliveries.listDeliveries({ tenant: "other", state: "dead", limit: 10 })).toEqual([]);
    expect(await deliveries.countByState()).toEqual({ pending: 3 });
  });

  it("retries dead deliveries (of a tenant, or by id) with a fresh round", async () => {
    const { deliveryJobs } = await dispatched(["https://a.example/hook", "https://b.example/hook"]);
    for (const queued of deliveryJobs) {
      const claim = await deliveries.claimDeliveryAttempt(deliveryIdOf(queued), queued.id);
      await deliveries.recordDeliveryAttempt(deliveryIdOf(queued), claim?.attempt ?? 0, {
        state: "dead",
        statusCode: 410,
        error: "gone",
        nextAttemptAt: undefined,
      });
    }
    const [one, two] = deliveryJobs.map(deliveryIdOf);
    expect(await deliveries.retryDeadDeliveries({ tenant: "other" })).toBe(0);
    expect(await deliveries.retryDeadDeliveries({ deliveryIds: [one ?? ""] })).toBe(1);
    expect(await deliveries.retryDeadDeliveries({ tenant: "acme" })).toBe(1);
    const rows = await database.db.selectFrom("webhook_deliveries").selectAll().execute();
    expect(rows.map((row) => [row.state, row.attempts])).toEqual([
      ["pending", 0],
      ["pending", 0],
    ]);
    const retried = jobs.on("deliver-webhook").slice(2).map(deliveryIdOf).sort();
    expect(retried).toEqual([one, two].sort());
  });

  it("lists active deliveries left alone too long, requeues each once, and skips finished ones", async () => {
    const { deliveryJobs } = await dispatched(["https://a.example/hook", "https://b.example/hook"]);
    const [stuck, done] = deliveryJobs;
    if (!stuck || !done) throw new Error("no deliveries queued");
    const claim = await deliveries.claimDeliveryAttempt(deliveryIdOf(done), done.id);
    await deliveries.recordDeliveryAttempt(deliveryIdOf(done), claim?.attempt ?? 0, {
      state: "delivered",
      statusCode: 200,
      error: undefined,
      nextAttemptAt: undefined,
    });
    expect(await deliveries.listStranded(60_000)).toEqual([]);
    clock.advance(120_000);
    const stranded = await deliveries.listStranded(60_000);
    expect(stranded).toEqual([{ kind: "delivery", id: deliveryIdOf(stuck), jobId: stuck.id }]);
    const [work] = stranded;
    if (!work) throw new Error("nothing stranded");
    expect(await deliveries.requeue({ ...work, kind: "batch" })).toBe(false);
    expect(await deliveries.requeue(work)).toBe(true);
    expect(await deliveries.requeue(work)).toBe(false);
    const requeued = jobs.last("deliver-webhook");
    expect(requeued.id).not.toBe(stuck.id);
    expect(await deliveries.listStranded(60_000)).toEqual([]);
    expect((await deliveries.claimDeliveryAttempt(deliveryIdOf(stuck), requeued.id))?.attempt).toBe(1);
  });
});
