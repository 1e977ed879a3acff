import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { WebhookEventStore } from "../domain/stores.js";
import { insertWebhookEvents } from "./insert-webhook-events.js";
import { ago, type Clock, type JobSender, type SchedulerDb } from "./job-sender.js";

/**
 * Webhook events and their dispatch into deliveries (`database` is bound to the service's schema);
 * dispatch and delivery jobs go through `send` in the same transaction. Times come from `now`.
 */
export function createWebhookEventStore(database: Kysely<unknown>, send: JobSender, now: Clock): WebhookEventStore {
  const db = database as SchedulerDb;

  return {
    insertEvent: (event) =>
      db.transaction().execute(async (trx) => (await insertWebhookEvents(trx, send, [event])) > 0),

    async findEvent(eventId) {
      const row = await db.selectFrom("webhook_events").selectAll().where("event_id", "=", eventId).executeTakeFirst();
      if (!row) return undefined;
      return {
        eventId: row.event_id,
        tenant: row.tenant,
        type: row.type,
        body: row.body,
        createdAt: row.created_at,
        dispatched: row.dispatched_at !== null,
      };
    },

    async recordEventDispatched(eventId, urls) {
      return db.transaction().execute(async (trx) => {
        const event = await trx
          .selectFrom("webhook_events")
          .select(["tenant", "type", "dispatched_at"])
          .where("event_id", "=", eventId)
          .forUpdate()
          .executeTakeFirst();
        if (!event || event.dispatched_at !== null) return 0;
        let created = 0;
        for (const url of urls) {
          const jobId = randomUUID();
          const deliveryId = randomUUID();
          const inserted = await trx
            .insertInto("webhook_deliveries")
            .values({
              delivery_id: deliveryId,
              event_id: eventId,
              event_type: event.type,
              tenant: event.tenant,
              url,
              state: "pending",
              job_id: jobId,
              created_at: now(),
              updated_at: now(),
            })
            .onConflict((oc) => oc.columns(["event_id", "url"]).doNothing())
            .returning("delivery_id")
            .executeTakeFirst();
          if (!inserted) continue;
          await send(trx, { queue: "deliver-webhook", data: { deliveryId } }, { id: jobId });
          created += 1;
        }
        await trx
          .updateTable("webhook_events")
          .set({ dispatched_at: now(), job_id: null })
          .where("event_id", "=", eventId)
          .execute();
        return created;
      });
    },

    async listStranded(olderThanMs) {
      const rows = await db
        .selectFrom("webhook_events")
        .select(["event_id as id", "job_id"])
        .where("dispatched_at", "is", null)
        .where("created_at", "<", ago(now, olderThanMs))
        .limit(500)
        .execute();
      return rows.map((row) => ({ kind: "event" as const, id: row.id, jobId: row.job_id }));
    },

    async requeue(work) {
      if (work.kind !== "event") return false;
      return db.transaction().execute(async (trx) => {
        const jobId = randomUUID();
        const updated = await trx
          .updateTable("webhook_events")
          .set({ job_id: jobId })
          .where("event_id", "=", work.id)
          .where("dispatched_at", "is", null)
          .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await send(trx, { queue: "dispatch-webhook-event", data: { eventId: work.id } }, { id: jobId });
        return true;
      });
    },
  };
}
