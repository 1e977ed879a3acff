import { randomUUID } from "node:crypto";
import { type Kysely, type Selectable, sql } from "kysely";
import type {
  Batch,
  JobRequest,
  LedgerAnchor,
  NewWebhookEvent,
  Notarization,
  NotarizationState,
  WebhookDelivery,
} from "../domain/model.js";
import type { SchedulerStore, StrandedWork } from "../domain/ports.js";
import type { BatchesTable, NotarizationsTable, SchedulerTables, WebhookDeliveriesTable } from "./tables.js";

type Db = Kysely<SchedulerTables>;

/** Queues a job inside the caller's transaction (`trx`), under the job id the row records. */
export type JobSender = (trx: Db, job: JobRequest, options: { id: string; startAfter?: Date }) => Promise<void>;

const ACTIVE_BATCH_STATES = ["pending", "running", "failed"] as const;
const ACTIVE_DELIVERY_STATES = ["pending", "running", "failed"] as const;

/** What callers see: a batch that is `running` (or not cut yet) is `pending`. */
const notarizationStateSql = sql<NotarizationState>`CASE WHEN b.state IS NULL OR b.state IN ('pending', 'running') THEN 'pending' ELSE b.state END`;

type NotarizationRow = Selectable<NotarizationsTable> &
  Pick<
    Selectable<BatchesTable>,
    "root" | "size" | "attempts" | "last_error" | "next_attempt_at" | "anchor" | "anchored_at"
  > & { state: NotarizationState };

const json = (value: unknown) => JSON.stringify(value);
const parsed = <T>(value: unknown): T => (typeof value === "string" ? (JSON.parse(value) as T) : (value as T));

function toNotarization(row: NotarizationRow): Notarization {
  const anchor = row.anchor === null ? undefined : parsed<LedgerAnchor>(row.anchor);
  return {
    objectId: row.object_id,
    chain: row.chain,
    tenant: row.tenant,
    credentialId: row.credential_id,
    offerId: row.offer_id ?? undefined,
    digest: row.digest,
    salt: row.salt,
    saltedDigest: row.salted_digest,
    state: row.state,
    createdAt: row.created_at,
    anchoredAt: row.anchored_at ?? undefined,
    batch:
      row.batch_id === null || row.leaf_index === null || row.root === null
        ? undefined
        : {
            batchId: row.batch_id,
            root: row.root,
            leafIndex: row.leaf_index,
            treeSize: row.size ?? 0,
            inclusionProof: parsed<string[]>(row.inclusion_proof ?? "[]"),
          },
    anchor,
    attempts: row.attempts ?? 0,
    lastError: row.last_error ?? undefined,
    nextAttemptAt: row.next_attempt_at ?? undefined,
  };
}

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

/** The scheduler's tables (`database` is bound to the service's schema); jobs go through `send`. */
export function createSchedulerStore(database: Kysely<unknown>, send: JobSender): SchedulerStore {
  const db = database as Db;

  const notarizationQuery = (executor: Db) =>
    executor
      .selectFrom("notarizations as n")
      .leftJoin("batches as b", "b.batch_id", "n.batch_id")
      .selectAll("n")
      .select([
        "b.root",
        "b.size",
        "b.attempts",
        "b.last_error",
        "b.next_attempt_at",
        "b.anchor",
        "b.anchored_at",
        notarizationStateSql.as("state"),
      ]);

  const readNotarization = async (executor: Db, column: "n.object_id" | "n.credential_id", value: string) => {
    const row = await notarizationQuery(executor).where(column, "=", value).executeTakeFirst();
    return row ? toNotarization(row as NotarizationRow) : undefined;
  };

  /** Inserts events once per dedupe key and queues a dispatch job for each new one; how many were new. */
  const insertEvents = async (trx: Db, events: NewWebhookEvent[]) => {
    let created = 0;
    for (const event of events) {
      const jobId = randomUUID();
      const inserted = await trx
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
        .returning("event_id")
        .executeTakeFirst();
      if (inserted) {
        created += 1;
        await send(trx, { queue: "dispatch-webhook-event", data: { eventId: event.eventId } }, { id: jobId });
      }
    }
    return created;
  };

  return {
    insertEvent: (event) => db.transaction().execute(async (trx) => (await insertEvents(trx, [event])) > 0),

    async insertNotarization(notarization) {
      await db
        .insertInto("notarizations")
        .values({
          object_id: notarization.objectId,
          chain: notarization.chain,
          tenant: notarization.tenant,
          credential_id: notarization.credentialId,
          offer_id: notarization.offerId ?? null,
          digest: notarization.digest,
          salt: notarization.salt,
          salted_digest: notarization.saltedDigest,
        })
        .onConflict((oc) => oc.column("credential_id").doNothing())
        .execute();
      const stored = await readNotarization(db, "n.credential_id", notarization.credentialId);
      if (!stored) throw new Error("notarization vanished after insert");
      return stored;
    },

    findNotarization: (objectId) => readNotarization(db, "n.object_id", objectId),
    findNotarizationByCredential: (credentialId) => readNotarization(db, "n.credential_id", credentialId),

    async listNotarizations({ tenant, state, limit }) {
      let query = notarizationQuery(db);
      if (tenant) query = query.where("n.tenant", "=", tenant);
      if (state) query = query.where(notarizationStateSql, "=", state);
      const rows = await query.orderBy("n.created_at", "desc").orderBy("n.object_id").limit(limit).execute();
      return rows.map((row) => toNotarization(row as NotarizationRow));
    },

    async listBatchNotarizations(batchId) {
      const rows = await notarizationQuery(db).where("n.batch_id", "=", batchId).orderBy("n.leaf_index").execute();
      return rows.map((row) => toNotarization(row as NotarizationRow));
    },

    async cutBatch(maxSize, intervalMs, plan) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom("notarizations")
          .select([
            "object_id",
            "salted_digest",
            sql<boolean>`created_at <= now() - make_interval(secs => ${intervalMs / 1000}::double precision)`.as("due"),
          ])
          .where("batch_id", "is", null)
          .orderBy("created_at")
          .orderBy("object_id")
          .limit(maxSize)
          .forUpdate()
          .skipLocked()
          .execute();
        const batch = plan(
          rows.map((row) => ({ objectId: row.object_id, saltedDigest: row.salted_digest, due: row.due })),
        );
        if (!batch) return false;
        const jobId = randomUUID();
        await trx
          .insertInto("batches")
          .values({
            batch_id: batch.batchId,
            root: batch.root,
            size: batch.leaves.length,
            state: "pending",
            job_id: jobId,
          })
          .execute();
        for (const leaf of batch.leaves) {
          await trx
            .updateTable("notarizations")
            .set({
              batch_id: batch.batchId,
              leaf_index: leaf.inclusion.leafIndex,
              inclusion_proof: json(leaf.inclusion.inclusionProof),
            })
            .where("object_id", "=", leaf.objectId)
            .execute();
        }
        await send(trx, { queue: "anchor-batch", data: { batchId: batch.batchId } }, { id: jobId });
        return true;
      });
    },

    async claimBatchAttempt(batchId, jobId) {
      const row = await db
        .updateTable("batches")
        .set({ state: "running", attempts: sql`attempts + 1`, updated_at: sql`now()` })
        .where("batch_id", "=", batchId)
        .where("job_id", "=", jobId)
        .where("state", "in", ACTIVE_BATCH_STATES)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const batch: Batch = {
        batchId: row.batch_id,
        root: row.root,
        size: row.size,
        state: row.state,
        attempts: row.attempts,
        jobId: row.job_id,
        deadRounds: row.dead_rounds,
      };
      return { record: batch, attempt: row.attempts };
    },

    async recordBatchAnchored(batchId, attempt, anchor, events) {
      return db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable("batches")
          .set({
            state: "anchored",
            anchor: json(anchor),
            anchored_at: sql`now()`,
            last_error: null,
            next_attempt_at: null,
            job_id: null,
            updated_at: sql`now()`,
          })
          .where("batch_id", "=", batchId)
          .where("attempts", "=", attempt)
          .where("state", "=", "running")
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await insertEvents(trx, events);
        return true;
      });
    },

    async recordBatchFailed(batchId, attempt, error, nextAttemptAt) {
      return db.transaction().execute(async (trx) => {
        const jobId = randomUUID();
        const updated = await trx
          .updateTable("batches")
          .set({
            state: "failed",
            last_error: error,
            next_attempt_at: nextAttemptAt,
            job_id: jobId,
            updated_at: sql`now()`,
          })
          .where("batch_id", "=", batchId)
          .where("attempts", "=", attempt)
          .where("state", "=", "running")
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await send(trx, { queue: "anchor-batch", data: { batchId } }, { id: jobId, startAfter: nextAttemptAt });
        return true;
      });
    },

    async recordBatchDead(batchId, attempt, error, events) {
      return db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable("batches")
          .set({
            state: "dead",
            last_error: error,
            next_attempt_at: null,
            job_id: null,
            dead_rounds: sql`dead_rounds + 1`,
            updated_at: sql`now()`,
          })
          .where("batch_id", "=", batchId)
          .where("attempts", "=", attempt)
          .where("state", "=", "running")
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await insertEvents(trx, events);
        return true;
      });
    },

    async retryDeadBatches({ tenant, objectIds }) {
      return db.transaction().execute(async (trx) => {
        let query = trx.selectFrom("batches").select("batch_id").where("state", "=", "dead");
        if (tenant || objectIds) {
          let members = trx.selectFrom("notarizations").select("batch_id").where("batch_id", "is not", null);
          if (tenant) members = members.where("tenant", "=", tenant);
          if (objectIds) members = members.where("object_id", "in", objectIds);
          query = query.where("batch_id", "in", members as never);
        }
        const dead = await query.forUpdate().execute();
        for (const { batch_id } of dead) {
          const jobId = randomUUID();
          await trx
            .updateTable("batches")
            .set({ state: "pending", attempts: 0, next_attempt_at: null, job_id: jobId, updated_at: sql`now()` })
            .where("batch_id", "=", batch_id)
            .execute();
          await send(trx, { queue: "anchor-batch", data: { batchId: batch_id } }, { id: jobId });
        }
        if (dead.length === 0) return { batches: 0, notarizations: 0 };
        const { count } = await trx
          .selectFrom("notarizations")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where(
            "batch_id",
            "in",
            dead.map((d) => d.batch_id),
          )
          .executeTakeFirstOrThrow();
        return { batches: dead.length, notarizations: Number(count) };
      });
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
          .set({ dispatched_at: sql`now()`, job_id: null })
          .where("event_id", "=", eventId)
          .execute();
        return created;
      });
    },

    async claimDeliveryAttempt(deliveryId, jobId) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("webhook_deliveries")
          .set({ state: "running", attempts: sql`attempts + 1`, updated_at: sql`now()` })
          .where("delivery_id", "=", deliveryId)
          .where("job_id", "=", jobId)
          .where("state", "in", ACTIVE_DELIVERY_STATES)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        await trx.insertInto("webhook_attempts").values({ delivery_id: deliveryId, attempt: row.attempts }).execute();
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
            delivered_at: outcome.state === "delivered" ? sql`now()` : null,
            job_id: jobId,
            updated_at: sql`now()`,
          })
          .where("delivery_id", "=", deliveryId)
          .where("attempts", "=", attempt)
          .where("state", "=", "running")
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await trx
          .updateTable("webhook_attempts")
          .set({ finished_at: sql`now()`, status_code: outcome.statusCode ?? null, error: outcome.error ?? null })
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
            { id: jobId, ...(outcome.nextAttemptAt ? { startAfter: outcome.nextAttemptAt } : {}) },
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
            .set({ state: "pending", attempts: 0, next_attempt_at: null, job_id: jobId, updated_at: sql`now()` })
            .where("delivery_id", "=", delivery_id)
            .execute();
          await send(trx, { queue: "deliver-webhook", data: { deliveryId: delivery_id } }, { id: jobId });
        }
        return dead.length;
      });
    },

    async listStranded(olderThanMs) {
      const before = sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000}::double precision)`;
      const [batches, events, deliveries] = await Promise.all([
        db
          .selectFrom("batches")
          .select(["batch_id as id", "job_id"])
          .where("state", "in", ACTIVE_BATCH_STATES)
          .where("updated_at", "<", before)
          .limit(500)
          .execute(),
        db
          .selectFrom("webhook_events")
          .select(["event_id as id", "job_id"])
          .where("dispatched_at", "is", null)
          .where("created_at", "<", before)
          .limit(500)
          .execute(),
        db
          .selectFrom("webhook_deliveries")
          .select(["delivery_id as id", "job_id"])
          .where("state", "in", ACTIVE_DELIVERY_STATES)
          .where("updated_at", "<", before)
          .limit(500)
          .execute(),
      ]);
      const of = (kind: StrandedWork["kind"]) => (row: { id: string; job_id: string | null }) => ({
        kind,
        id: row.id,
        jobId: row.job_id,
      });
      return [...batches.map(of("batch")), ...events.map(of("event")), ...deliveries.map(of("delivery"))];
    },

    async requeue(work) {
      return db.transaction().execute(async (trx) => {
        const jobId = randomUUID();
        if (work.kind === "batch") {
          const updated = await trx
            .updateTable("batches")
            .set({ job_id: jobId, updated_at: sql`now()` })
            .where("batch_id", "=", work.id)
            .where("state", "in", ACTIVE_BATCH_STATES)
            .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
            .executeTakeFirst();
          if (updated.numUpdatedRows === 0n) return false;
          await send(trx, { queue: "anchor-batch", data: { batchId: work.id } }, { id: jobId });
        } else if (work.kind === "event") {
          const updated = await trx
            .updateTable("webhook_events")
            .set({ job_id: jobId })
            .where("event_id", "=", work.id)
            .where("dispatched_at", "is", null)
            .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
            .executeTakeFirst();
          if (updated.numUpdatedRows === 0n) return false;
          await send(trx, { queue: "dispatch-webhook-event", data: { eventId: work.id } }, { id: jobId });
        } else {
          const updated = await trx
            .updateTable("webhook_deliveries")
            .set({ job_id: jobId, updated_at: sql`now()` })
            .where("delivery_id", "=", work.id)
            .where("state", "in", ACTIVE_DELIVERY_STATES)
            .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
            .executeTakeFirst();
          if (updated.numUpdatedRows === 0n) return false;
          await send(trx, { queue: "deliver-webhook", data: { deliveryId: work.id } }, { id: jobId });
        }
        return true;
      });
    },

    async countByState() {
      const [notarizations, deliveries] = await Promise.all([
        db
          .selectFrom("notarizations as n")
          .leftJoin("batches as b", "b.batch_id", "n.batch_id")
          .select([notarizationStateSql.as("state"), (eb) => eb.fn.countAll<number>().as("count")])
          .groupBy(notarizationStateSql)
          .execute(),
        db
          .selectFrom("webhook_deliveries")
          .select(["state", (eb) => eb.fn.countAll<number>().as("count")])
          .groupBy("state")
          .execute(),
      ]);
      const record = (rows: Array<{ state: string; count: number | string | bigint }>) =>
        Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
      return { notarizations: record(notarizations), deliveries: record(deliveries as never) };
    },
  };
}
