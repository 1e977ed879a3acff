import { createHmac, timingSafeEqual } from "node:crypto";
import { notaryV1 } from "@attesto/proto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotaryServiceRpc } from "../src/rpc/notary-service.rpc.js";
import {
  inMemoryClient,
  newCredentialId,
  sha256Hex,
  startTestScheduler,
  type TestScheduler,
  waitFor,
} from "./support/test-scheduler.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";

const { DeliveryState } = notaryV1;

/** The receiver's own verification, written from the README and not from the scheduler's code. */
function verifiedByReceiver(secret: string, body: string, header: string): boolean {
  const fields = Object.fromEntries(header.split(",").map((part) => part.split("=") as [string, string]));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest();
  const given = Buffer.from(fields.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("webhooks", () => {
  let scheduler: TestScheduler;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    scheduler = await startTestScheduler({ WEBHOOK_TIMEOUT_MS: "700" });
    receiver = await new WebhookReceiver().start();
    await scheduler.start();
  });
  afterAll(async () => {
    await scheduler?.close();
    await receiver?.close();
  });

  /** A tenant with one endpoint, and one of its credentials enqueued. */
  async function notarizeFor(path: string, events: string[] = []) {
    const { tenant, secret } = scheduler.tenants.register([`${receiver.url}${path}`], events);
    const reference = await scheduler.notary.enqueueNotarization({
      tenant,
      credentialId: newCredentialId(),
      digest: sha256Hex(path),
      offerId: `offer-${path.slice(1)}`,
    });
    return { tenant, secret, reference };
  }
  const requestsTo = (path: string) => receiver.received.filter((r) => r.headers.host && r.body && r.path === path);
  const deliveriesOf = async (tenant: string) => (await scheduler.admin.listWebhookDeliveries({ tenant })).deliveries;

  it("signs credential.notarized so that a receiver verifies it with its own HMAC code", async () => {
    const { tenant, secret, reference } = await notarizeFor("/signed");
    const [request] = await waitFor(async () => requestsTo("/signed").length > 0 && requestsTo("/signed"));
    const event = JSON.parse(request!.body);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["attesto-event-id"]).toBe(event.id);
    expect(request!.headers["attesto-event-type"]).toBe("credential.notarized");
    expect(request!.headers["user-agent"]).toMatch(/^attesto-scheduler\//);
    const signature = String(request!.headers["attesto-signature"]);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifiedByReceiver(secret, request!.body, signature)).toBe(true);
    expect(verifiedByReceiver("whsec_wrong", request!.body, signature)).toBe(false);
    expect(verifiedByReceiver(secret, request!.body.replace("ledger", "LEDGER"), signature)).toBe(false);

    const { notarization } = await scheduler.admin.getNotarization({ objectId: reference.objectId });
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "credential.notarized",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      tenant,
      data: {
        offer_id: "offer-signed",
        credential_id: notarization!.credentialId,
        reference: { chain: "ledger", object_id: reference.objectId },
        digest: notarization!.digest,
        salt: notarization!.salt,
        salted_digest: notarization!.saltedDigest,
        inclusion_proof: {
          batch_id: notarization!.batch!.batchId,
          root: notarization!.batch!.root,
          leaf_index: Number(notarization!.batch!.leafIndex),
          tree_size: Number(notarization!.batch!.treeSize),
          path: notarization!.batch!.inclusionProof,
        },
        ledger: {
          object_id: notarization!.anchor!.objectId,
          chain: "ledger",
          sequence: Number(notarization!.anchor!.sequence),
          recorded_at: expect.any(String),
          checkpoint: {
            tree_size: Number(notarization!.anchor!.checkpoint!.treeSize),
            root_hash: notarization!.anchor!.checkpoint!.rootHash,
            created_at: expect.any(String),
            signature_jws: notarization!.anchor!.checkpoint!.signatureJws,
          },
          inclusion_proof: notarization!.anchor!.inclusionProof,
        },
        anchored_at: expect.any(String),
      },
    });
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(tenant);
      return list[0]?.state === DeliveryState.DELIVERED && list;
    });
    expect(delivery).toMatchObject({
      eventId: event.id,
      eventType: "credential.notarized",
      attempts: 1,
      lastStatusCode: 200,
    });
  });

  it("retries after a 500 and delivers the same event (same id, same body) once it gets a 200", async () => {
    receiver.script.push(500);
    const { tenant } = await notarizeFor("/flaky");
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(tenant);
      return list[0]?.state === DeliveryState.DELIVERED && list;
    });
    const requests = requestsTo("/flaky");
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((r) => r.headers["attesto-event-id"])).size).toBe(1);
    expect(requests[0]!.body).toBe(requests[1]!.body);
    expect(delivery!.attempts).toBe(2);
    expect(delivery!.attemptLog.map((a) => ({ attempt: a.attempt, status: a.statusCode, error: a.error }))).toEqual([
      { attempt: 1, status: 500, error: "endpoint answered HTTP 500" },
      { attempt: 2, status: 200, error: "" },
    ]);
    for (const attempt of delivery!.attemptLog) expect(attempt.finishedAt).toBeDefined();
    // The failed attempt is logged at warn: target host (never the path), status, attempt.
    expect(scheduler.warnings.filter((w) => w.fields.tenant === tenant)).toEqual([
      {
        message: "webhook delivery failed; will retry",
        fields: {
          tenant,
          delivery_id: delivery!.deliveryId,
          event_id: delivery!.eventId,
          event_type: "credential.notarized",
          target_host: new URL(receiver.url).host,
          status: 500,
          attempt: 1,
          error: "endpoint answered HTTP 500",
          next_attempt_at: expect.stringMatching(/^\d{4}-/),
        },
      },
    ]);
    expect(JSON.parse(requests[1]!.body).data.offer_id).toBe("offer-flaky");
  });

  it("gives up on an endpoint that does not answer within WEBHOOK_TIMEOUT_MS, and retries", async () => {
    receiver.script.push("hang");
    const { tenant } = await notarizeFor("/slow");
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(tenant);
      return list[0]?.state === DeliveryState.DELIVERED && list;
    });
    expect(delivery!.attemptLog.map((a) => ({ status: a.statusCode, error: a.error }))).toEqual([
      { status: 0, error: "webhook request timed out after 700 ms" },
      { status: 200, error: "" },
    ]);
  });

  it("dead-letters a delivery after the bounded attempts; an operator retry delivers it", async () => {
    receiver.script.push(503, 503, 503);
    const { tenant } = await notarizeFor("/down");
    const [dead] = await waitFor(async () => {
      const list = await deliveriesOf(tenant);
      return list[0]?.state === DeliveryState.DEAD && list;
    });
    expect(dead!.attempts).toBe(3);
    expect(dead!.lastStatusCode).toBe(503);
    expect(
      (await scheduler.admin.listWebhookDeliveries({ state: DeliveryState.DEAD })).deliveries.map((d) => d.deliveryId),
    ).toContain(dead!.deliveryId);

    const retried = await scheduler.admin.retryDeadJobs({ deliveryIds: [dead!.deliveryId] });
    expect(retried).toMatchObject({ batches: 0, webhookDeliveries: 1 });
    const [delivered] = await waitFor(async () => {
      const list = await deliveriesOf(tenant);
      return list[0]?.state === DeliveryState.DELIVERED && list;
    });
    expect(delivered!.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 503, 200]);
    expect(new Set(requestsTo("/down").map((r) => r.headers["attesto-event-id"])).size).toBe(1);
  });

  it("sends verification events only to endpoints that list them, once per session; only the verifier publishes", async () => {
    const { tenant } = scheduler.tenants.register([`${receiver.url}/every-type`]);
    scheduler.tenants.tenants.get(tenant)!.webhooks.push({
      url: `${receiver.url}/verifications`,
      events: ["verification.completed"],
    });
    const asVerifier = inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(scheduler.deps)),
      { caller: "verifier", callee: "scheduler" },
    );
    const result = { status: "completed", failed_check: null, check_results: [] };
    const request = { tenant, sessionId: "session-1", verified: true, resultJson: JSON.stringify(result) };
    // The event's dispatch job is pg-boss's own insert in the event's statement: one per event.
    const dispatchJobs = async () =>
      (
        await sql<{ count: string }>`
          SELECT count(*) FROM ${sql.table(`${scheduler.config.JOB_QUEUE_SCHEMA}.job`)}
          WHERE name = 'dispatch-webhook-event'`.execute(scheduler.db)
      ).rows[0]?.count;
    const before = Number(await dispatchJobs());
    expect(await asVerifier.publishVerificationEvent(request)).toMatchObject({ created: true });
    expect(Number(await dispatchJobs())).toBe(before + 1);
    expect(await asVerifier.publishVerificationEvent(request)).toMatchObject({ created: false });
    expect(Number(await dispatchJobs())).toBe(before + 1);
    const refused = await scheduler.notary.publishVerificationEvent(request).catch((e: unknown) => e);
    expect(String(refused)).toContain(
      "attesto.notary.v1.NotaryService/PublishVerificationEvent may not be called by 'credential-issuer'",
    );
    const badResult = await asVerifier
      .publishVerificationEvent({ ...request, sessionId: "session-2", resultJson: "[1]" })
      .catch((e: unknown) => e);
    expect(String(badResult)).toContain("result_json must be a JSON object");

    const [delivered] = await waitFor(
      async () => requestsTo("/verifications").length > 0 && requestsTo("/verifications"),
    );
    expect(JSON.parse(delivered!.body)).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "verification.completed",
      created_at: expect.any(String),
      tenant,
      data: { session_id: "session-1", result },
    });
    // A credential event still reaches both: the endpoint without a list gets every non-opt-in type.
    await scheduler.notary.enqueueNotarization({ tenant, credentialId: newCredentialId(), digest: sha256Hex(tenant) });
    await waitFor(async () => requestsTo("/every-type").length > 0);
    const deliveries = await deliveriesOf(tenant);
    expect(deliveries.filter((d) => d.eventType === "verification.completed").map((d) => d.url)).toEqual([
      `${receiver.url}/verifications`,
    ]);
    expect(requestsTo("/every-type").map((r) => r.headers["attesto-event-type"])).toEqual(["credential.notarized"]);
  });

  it("stores no verification event for a tenant without an endpoint that lists its type (opt-in)", async () => {
    // Only an endpoint for every non-opt-in type, and one for the other verification type.
    const { tenant } = scheduler.tenants.register([`${receiver.url}/no-verifications`]);
    scheduler.tenants.tenants.get(tenant)!.webhooks.push({
      url: `${receiver.url}/failed-verifications`,
      events: ["verification.failed"],
    });
    const asVerifier = inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(scheduler.deps)),
      { caller: "verifier", callee: "scheduler" },
    );
    const result = JSON.stringify({ status: "completed", failed_check: null, check_results: [] });
    const stored = async () =>
      (await scheduler.db.selectFrom("webhook_events").select("event_id").where("tenant", "=", tenant).execute())
        .length;
    // verification.completed: nobody listens, so no event and no dispatch job.
    expect(
      await asVerifier.publishVerificationEvent({ tenant, sessionId: "s-1", verified: true, resultJson: result }),
    ).toMatchObject({ created: false });
    expect(await stored()).toBe(0);
    // verification.failed: the endpoint that lists it gets it.
    expect(
      await asVerifier.publishVerificationEvent({ tenant, sessionId: "s-2", verified: false, resultJson: result }),
    ).toMatchObject({ created: true });
    expect(await stored()).toBe(1);
    await waitFor(async () => requestsTo("/failed-verifications").length > 0);
    expect(requestsTo("/no-verifications")).toEqual([]);
  });

  it("sends the credential issuer's credential events, once per event key; only the credential issuer publishes", async () => {
    const { tenant } = scheduler.tenants.register([`${receiver.url}/credential-events`]);
    const credentialId = newCredentialId();
    const offerId = "4b0d7a7e-3c2f-4f38-9a43-1f3e0f9f2d11";
    const request = {
      tenant,
      type: "credential.status_changed",
      credentialId,
      offerId,
      eventKey: "change-1",
      dataJson: JSON.stringify({ status: "revoked", previous_status: "active" }),
    };
    expect(await scheduler.notary.publishCredentialEvent(request)).toMatchObject({ created: true });
    expect(await scheduler.notary.publishCredentialEvent(request)).toMatchObject({ created: false });
    const asVerifier = inMemoryClient(
      notaryV1.NotaryService,
      (router) => router.service(notaryV1.NotaryService, new NotaryServiceRpc(scheduler.deps)),
      { caller: "verifier", callee: "scheduler" },
    );
    expect(String(await asVerifier.publishCredentialEvent(request).catch((e: unknown) => e))).toContain(
      "attesto.notary.v1.NotaryService/PublishCredentialEvent may not be called by 'verifier'",
    );
    for (const [change, message] of [
      [{ type: "credential.issued" }, "type must be one of"],
      [{ dataJson: "[1]" }, "data_json must be a JSON object"],
      [{ credentialId: "nope" }, "credential_id must be a lowercase UUID"],
      [{ eventKey: "" }, "event_key is required"],
    ] as const) {
      const refused = await scheduler.notary.publishCredentialEvent({ ...request, ...change }).catch((e: unknown) => e);
      expect(String(refused)).toContain(message);
    }
    const [delivered] = await waitFor(
      async () => requestsTo("/credential-events").length > 0 && requestsTo("/credential-events"),
    );
    expect(JSON.parse(delivered!.body)).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: "credential.status_changed",
      created_at: expect.any(String),
      tenant,
      data: { status: "revoked", previous_status: "active", offer_id: offerId, credential_id: credentialId },
    });
    expect(delivered!.headers["attesto-event-type"]).toBe("credential.status_changed");
  });

  it("sends an event only to endpoints subscribed to its type", async () => {
    const { tenant } = await notarizeFor("/failures-only", ["credential.notarization_failed"]);
    await waitFor(async () => {
      const events = await scheduler.db
        .selectFrom("webhook_events")
        .select("dispatched_at")
        .where("tenant", "=", tenant)
        .executeTakeFirst();
      return events?.dispatched_at;
    });
    expect(await deliveriesOf(tenant)).toEqual([]);
    expect(requestsTo("/failures-only")).toEqual([]);
  });

  it("retries while the trust registry is unreachable, without losing the event", async () => {
    scheduler.tenants.down = true;
    try {
      const { tenant } = await notarizeFor("/registry-down");
      // Two lookups of this tenant's webhooks: the event was dispatched, failed and retried (not lost).
      await waitFor(async () => (scheduler.tenants.callsFor.get(tenant) ?? 0) >= 2, 30_000, "a retried lookup");
      expect(requestsTo("/registry-down")).toEqual([]);
    } finally {
      scheduler.tenants.down = false;
    }
    await waitFor(async () => requestsTo("/registry-down").length === 1, 20_000, "delivery after the registry is back");
  });
});

describe("webhook targets", () => {
  let scheduler: TestScheduler;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // http allowed, so that what refuses these targets is their address.
    scheduler = await startTestScheduler({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "false", OUTBOUND_ALLOW_HTTP: "true" });
    receiver = await new WebhookReceiver().start();
    await scheduler.start();
  });
  afterAll(async () => {
    await scheduler?.close();
    await receiver?.close();
  });

  it("refuses loopback, private and link-local targets at delivery time, without connecting", async () => {
    const port = new URL(receiver.url).port;
    const urls = [
      `http://127.0.0.1:${port}/hook`,
      `http://localhost:${port}/hook`,
      "http://10.1.2.3/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
    ];
    const { tenant } = scheduler.tenants.register(urls);
    await scheduler.notary.enqueueNotarization({ tenant, credentialId: newCredentialId(), digest: sha256Hex("p") });
    const deliveries = await waitFor(async () => {
      const list = (await scheduler.admin.listWebhookDeliveries({ tenant })).deliveries;
      return list.length === urls.length && list.every((d) => d.state === DeliveryState.DEAD) && list;
    });
    for (const delivery of deliveries) {
      expect(delivery.attempts).toBe(1);
      expect(delivery.lastStatusCode).toBe(0);
      expect(delivery.lastError).toMatch(/resolves to a non-public address \(not allowed\)$/);
    }
    expect(receiver.received).toEqual([]);
  });
});
