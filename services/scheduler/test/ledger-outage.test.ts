import { runDeadLetters } from "@attesto/cli";
import { notaryV1 } from "@attesto/proto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newCredentialId,
  sha256Hex,
  startTestScheduler,
  type TestScheduler,
  waitFor,
} from "./support/test-scheduler.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";

const { NotarizationState } = notaryV1;

describe("ledger outage: retries with backoff, dead letter, operator retry", () => {
  let scheduler: TestScheduler;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    scheduler = await startTestScheduler({ NOTARY_BATCH_MAX_SIZE: "2" });
    receiver = await new WebhookReceiver().start();
    await scheduler.start();
  });
  afterAll(async () => {
    await scheduler?.close();
    await receiver?.close();
  });

  const stateOf = async (objectId: string) => (await scheduler.admin.getNotarization({ objectId })).notarization!;
  const eventsOf = (type: string) =>
    receiver.received.map((r) => JSON.parse(r.body)).filter((event) => event.type === type);

  it("dead-letters after the bounded attempts, then anchors once after RetryDeadJobs", async () => {
    const { tenant } = scheduler.tenants.register([`${receiver.url}/hooks`]);
    scheduler.ledger.down = true;
    const a = await scheduler.notary.enqueueNotarization({
      tenant,
      credentialId: newCredentialId(),
      digest: sha256Hex("a"),
    });
    const b = await scheduler.notary.enqueueNotarization({
      tenant,
      credentialId: newCredentialId(),
      digest: sha256Hex("b"),
    });

    // A failed attempt is visible with its error and the time of the next one.
    const failed = await waitFor(async () => {
      const n = await stateOf(a.objectId);
      return n.state === NotarizationState.FAILED && n;
    });
    expect(failed.lastError).toContain("ledger unavailable");
    expect(failed.nextAttemptAt).toBeDefined();

    const dead = await waitFor(async () => {
      const n = await stateOf(a.objectId);
      return n.state === NotarizationState.DEAD && n;
    });
    expect(dead.attempts).toBe(3);
    expect(dead.lastError).toBe("ledger unavailable: connect ECONNREFUSED 127.0.0.1:9088");
    expect((await stateOf(b.objectId)).state).toBe(NotarizationState.DEAD);
    const listed = await scheduler.admin.listNotarizations({ tenant, state: NotarizationState.DEAD });
    expect(listed.notarizations.map((n) => n.objectId).sort()).toEqual([a.objectId, b.objectId].sort());

    // The operator CLI lists them (through the same RPCs).
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(`ERR ${line}`) };
    expect(await runDeadLetters(["list", "--tenant", tenant], scheduler.admin, io)).toBe(0);
    expect(lines.filter((line) => line.startsWith("notarization\t")).sort()).toEqual(
      [a, b]
        .map((r) => r.objectId)
        .sort()
        .map((id) => expect.stringMatching(new RegExp(`^notarization\t${id}\t${tenant}\t.+\t3\tledger unavailable`))),
    );
    expect(await runDeadLetters(["bogus"], scheduler.admin, io)).toBe(2);

    // One credential.notarization_failed per credential, delivered to the tenant.
    await waitFor(async () => eventsOf("credential.notarization_failed").length === 2, 15_000, "failure events");
    const failure = eventsOf("credential.notarization_failed").find((e) => e.data.reference.object_id === a.objectId);
    expect(failure).toMatchObject({
      type: "credential.notarization_failed",
      tenant,
      data: {
        reference: { chain: "ledger", object_id: a.objectId },
        error: { attempts: 3, message: "ledger unavailable: connect ECONNREFUSED 127.0.0.1:9088" },
      },
    });

    // The ledger comes back; nothing happens by itself (dead means dead) until the operator retries.
    // A new notarization (another tenant, no webhooks) anchoring proves the workers ran meanwhile.
    scheduler.ledger.down = false;
    const probe = await scheduler.notary.enqueueNotarization({
      tenant: scheduler.tenants.register([]).tenant,
      credentialId: newCredentialId(),
      digest: sha256Hex("after the outage"),
    });
    await waitFor(async () => (await stateOf(probe.objectId)).state === NotarizationState.ANCHORED);
    expect((await stateOf(a.objectId)).state).toBe(NotarizationState.DEAD);
    const retried = await scheduler.admin.retryDeadJobs({ objectIds: [a.objectId] });
    expect(retried).toMatchObject({ batches: 1, notarizations: 2 });

    const anchoredA = await waitFor(async () => {
      const n = await stateOf(a.objectId);
      return n.state === NotarizationState.ANCHORED && n;
    });
    expect(anchoredA.attempts).toBe(1);
    expect(anchoredA.lastError).toBe("");
    expect((await stateOf(b.objectId)).state).toBe(NotarizationState.ANCHORED);
    await waitFor(async () => eventsOf("credential.notarized").length === 2, 15_000, "notarized events");
    expect(eventsOf("credential.notarization_failed")).toHaveLength(2);

    const entries = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(`${scheduler.ledger.database.schema}.ledger_entries`)}
      WHERE kind = 'notarization' AND payload->>'digest' = ${anchoredA.batch!.root}
    `.execute(scheduler.ledger.database.db);
    expect(entries.rows[0]?.n).toBe(1);
    expect(await scheduler.admin.retryDeadJobs({})).toMatchObject({ batches: 0, webhookDeliveries: 0 });
  });
});
