import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { WebhookEventStore } from "../domain/ports.js";
import { insertEventOnce } from "./insert-webhook-events.js";
import { ago, type Clock, type JobInsertBuilder, type JobSender, type SchedulerDb } from "./job-sender.js";

/**
 * Webhook events and their dispatch into deliveries (`database` is bound to the service's schema);
 * dispatch and delivery jobs go through `send` in the same transaction, or, for a published
 * event, are built by `insertJob` into the event's own statement. Times come from `now`.
 */
export function createWebhookEventStore(
  database: Kysely<unknown>,
  send: JobSender,
  insertJob: JobInsertBuilder,
  now: Clock,
): WebhookEventStore {
  const db = database as SchedulerDb;

  return {
    // One statement instead of BEGIN, insert, job, COMMIT: the event (once per dedupe key) and,
    // only if it is new, its dispatch job commit together or not at all.
    async insertEvent(event) {
      const jobId = randomUUID();
      const job = await insertJob({ queue: "dispatch-webhook-event", data: { eventId: event.eventId } }, { id: jobId });
      const newEvent = insertEventOnce(db, event, jobId);
      const { rows } = await sql<{ created: string; queued: string }>`
        WITH new_event AS (${newEvent}), job AS (${job.when(sql<boolean>`EXISTS (SELECT 1 FROM new_event)`)})
        SELECT (SELECT count(*) FROM new_event) AS created, (SELECT count(*) FROM job) AS queued`.execute(db);
      const [row] = rows;
      if (Number(row?.queued) > 0) job.queued();
      return Number(row?.created) > 0;
    },

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
      if (urls.length === 0) {
        // No endpoint for its type (the common case for opt-in events): nothing to insert, so one
        // guarded statement marks it dispatched instead of a transaction around a locked read.
        await db
          .updateTable("webhook_events")
          .set({ dispatched_at: now(), job_id: null })
          .where("event_id", "=", eventId)
          .where("dispatched_at", "is", null)
          .execute();
        return 0;
      }
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
