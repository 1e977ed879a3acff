import { randomUUID } from "node:crypto";
import type { NewWebhookEvent } from "../domain/model.js";
import type { JobSender, SchedulerDb } from "./job-sender.js";

/**
 * Inserts events once per dedupe key and queues a dispatch job for each new one, inside the
 * caller's transaction; how many were new. Shared by the event store and the batch transitions
 * that emit events.
 */
export async function insertWebhookEvents(trx: SchedulerDb, send: JobSender, events: NewWebhookEvent[]) {
  let created = 0;
  for (const event of events) {
    const jobId = randomUUID();
    const inserted = await insertEventOnce(trx, event, jobId).executeTakeFirst();
    if (inserted) {
      created += 1;
      await send(trx, { queue: "dispatch-webhook-event", data: { eventId: event.eventId } }, { id: jobId });
    }
  }
  return created;
}

/** The insert of one event (nothing when its dedupe key is taken), returning its id when new. */
export function insertEventOnce(db: SchedulerDb, event: NewWebhookEvent, jobId: string) {
  return db
    .insertInto("webhook_events")
    .values({
      event_id: event.eventId,
      dedupe_key: event.dedupeKey,
      tenant: event.tenant,
      type: event.type,
      body: event.body,
      job_id: jobId,
      created_at: event.createdAt,
    })
    .onConflict((oc) => oc.column("dedupe_key").doNothing())
    .returning("event_id");
}
