import { randomUUID } from "node:crypto";
import { type Kysely, type Selectable, sql } from "kysely";
import type { WebhookDelivery } from "../domain/model.js";
import type { WebhookDeliveryStore } from "../domain/ports.js";
import { ACTIVE_STATES, ago, type Clock, type JobSender, type SchedulerDb } from "./job-sender.js";
import type { WebhookDeliveriesTable } from "./tables.js";

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType: row.event_type,
    tenant: row.tenant,
    url: row.url,
    state: row.state,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code ?? undefined,
    lastError: row.last_error ?? undefined,
    nextAttemptAt: row.next_attempt_at ?? undefined,
    deliveredAt: row.delivered_at ?? undefined,
    createdAt: row.created_at,
    attemptLog: [],
  };
}

/**
 * Webhook deliveries and their attempt log (`database` is bound to the service's schema); retry
 * jobs go through `send` in the same transaction. Times come from `now`.
 */
export function createWebhookDeliveryStore(
  database: Kysely<unknown>,
  send: JobSender,
  now: Clock,
): WebhookDeliveryStore {
  const db = database as SchedulerDb;

  return {
    async claimDeliveryAttempt(deliveryId, jobId) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("webhook_deliveries")
          .set({ state: "running", attempts: sql`attempts + 1`, updated_at: now() })
          .where("delivery_id", "=", deliveryId)
          .where("job_id", "=", jobId)
          .where("state", "in", ACTIVE_STATES)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        await trx
          .insertInto("webhook_attempts")
          .values({ delivery_id: deliveryId, attempt: row.attempts, started_at: now() })
          .execute();
        const event = await trx
          .selectFrom("webhook_events")
          .selectAll()
          .where("event_id", "=", row.event_id)
          .executeTakeFirstOrThrow();
        return {
          record: {
            delivery: toDelivery(row),
            event: {
              eventId: event.event_id,
              tenant: event.tenant,
              type: event.type,
              body: event.body,
              createdAt: event.created_at,
            },
          },
          attempt: row.attempts,
        };
      });
    },

    async recordDeliveryAttempt(deliveryId, attempt, outcome) {
      return db.transaction().execute(async (trx) => {
        const jobId = outcome.state === "failed" ? randomUUID() : null;
        const updated = await trx
          .updateTable("webhook_deliveries")
          .set({
            state: outcome.state,
            last_status_code: outcome.statusCode ?? null,
            last_error: outcome.error ?? null,
            next_attempt_at: outcome.nextAttemptAt ?? null,
            delivered_at: outcome.state === "delivered" ? now() : null,
            job_id: jobId,
            updated_at: now(),
          })
          .where("delivery_id", "=", deliveryId)
          .where("attempts", "=", attempt)
          .where("state", "=", "running")
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await trx
          .updateTable("webhook_attempts")
          .set({ finished_at: now(), status_code: outcome.statusCode ?? null, error: outcome.error ?? null })
          .where(
            "id",
            "=",
            trx
              .selectFrom("webhook_attempts")
              .select((eb) => eb.fn.max("id").as("id"))
              .where("delivery_id", "=", deliveryId) as never,
          )
          .execute();
        if (jobId) {
          await send(
            trx,
            { queue: "deliver-webhook", data: { deliveryId } },
            {
              id: jobId,
              ...(outcome.nextAttemptAt ? { delayMs: outcome.nextAttemptAt.getTime() - now().getTime() } : {}),
            },
          );
        }
        return true;
      });
    },

    async listDeliveries({ tenant, eventId, state, limit }) {
      let query = db.selectFrom("webhook_deliveries").selectAll();
      if (tenant) query = query.where("tenant", "=", tenant);
      if (eventId) query = query.where("event_id", "=", eventId);
      if (state) query = query.where("state", "=", state);
      const rows = await query.orderBy("created_at", "desc").orderBy("delivery_id").limit(limit).execute();
      const deliveries = rows.map(toDelivery);
      if (deliveries.length === 0) return deliveries;
      const attempts = await db
        .selectFrom("webhook_attempts")
        .selectAll()
        .where(
          "delivery_id",
          "in",
          deliveries.map((d) => d.deliveryId),
        )
        .orderBy("id")
        .execute();
      const byId = new Map(deliveries.map((d) => [d.deliveryId, d]));
      for (const row of attempts) {
        byId.get(row.delivery_id)?.attemptLog.push({
          attempt: row.attempt,
          startedAt: row.started_at,
          finishedAt: row.finished_at ?? undefined,
          statusCode: row.status_code ?? undefined,
          error: row.error ?? undefined,
        });
      }
      return deliveries;
    },

    async retryDeadDeliveries({ tenant, deliveryIds }) {
      return db.transaction().execute(async (trx) => {
        let query = trx.selectFrom("webhook_deliveries").select("delivery_id").where("state", "=", "dead");
        if (tenant) query = query.where("tenant", "=", tenant);
        if (deliveryIds) query = query.where("delivery_id", "in", deliveryIds);
        const dead = await query.forUpdate().execute();
        for (const { delivery_id } of dead) {
          const jobId = randomUUID();
          await trx
            .updateTable("webhook_deliveries")
            .set({ state: "pending", attempts: 0, next_attempt_at: null, job_id: jobId, updated_at: now() })
            .where("delivery_id", "=", delivery_id)
            .execute();
          await send(trx, { queue: "deliver-webhook", data: { deliveryId: delivery_id } }, { id: jobId });
        }
        return dead.length;
      });
    },

    async listStranded(olderThanMs) {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .select(["delivery_id as id", "job_id"])
        .where("state", "in", ACTIVE_STATES)
        .where("updated_at", "<", ago(now, olderThanMs))
        .limit(500)
        .execute();
      return rows.map((row) => ({ kind: "delivery" as const, id: row.id, jobId: row.job_id }));
    },

    async requeue(work) {
      if (work.kind !== "delivery") return false;
      return db.transaction().execute(async (trx) => {
        const jobId = randomUUID();
        const updated = await trx
          .updateTable("webhook_deliveries")
          .set({ job_id: jobId, updated_at: now() })
          .where("delivery_id", "=", work.id)
          .where("state", "in", ACTIVE_STATES)
          .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await send(trx, { queue: "deliver-webhook", data: { deliveryId: work.id } }, { id: jobId });
        return true;
      });
    },

    async countByState() {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .select(["state", (eb) => eb.fn.countAll<number>().as("count")])
        .groupBy("state")
        .execute();
      return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
    },
  };
}
