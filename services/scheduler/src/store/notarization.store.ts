import { randomUUID } from "node:crypto";
import { type Kysely, type Selectable, sql, type UpdateObject } from "kysely";
import type { Batch, LedgerAnchor, Notarization, NotarizationState } from "../domain/model.js";
import type { NotarizationStore } from "../domain/ports.js";
import { insertWebhookEvents } from "./insert-webhook-events.js";
import { ACTIVE_STATES, ago, type Clock, type JobSender, type SchedulerDb } from "./job-sender.js";
import type { BatchesTable, NotarizationsTable, SchedulerTables } from "./tables.js";

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

/**
 * Notarizations and their batches (`database` is bound to the service's schema); anchor jobs and
 * the events of batch transitions go through `send` in the same transaction. Times come from `now`.
 */
export function createNotarizationStore(database: Kysely<unknown>, send: JobSender, now: Clock): NotarizationStore {
  const db = database as SchedulerDb;

  /**
   * Ends attempt `attempt` of a `running` batch with `changes`, and runs `then` in the same
   * transaction; false (and nothing written) when the batch has moved on since (another replica
   * finished it, or it was requeued).
   */
  const finishRunningBatch = (
    batchId: string,
    attempt: number,
    changes: UpdateObject<SchedulerTables, "batches">,
    then: (trx: SchedulerDb) => Promise<unknown>,
  ): Promise<boolean> =>
    db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("batches")
        .set({ ...changes, updated_at: now() })
        .where("batch_id", "=", batchId)
        .where("attempts", "=", attempt)
        .where("state", "=", "running")
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      await then(trx);
      return true;
    });

  const notarizationQuery = (executor: SchedulerDb) =>
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

  const readNotarization = async (column: "n.object_id" | "n.credential_id", value: string) => {
    const row = await notarizationQuery(db).where(column, "=", value).executeTakeFirst();
    return row ? toNotarization(row as NotarizationRow) : undefined;
  };

  return {
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
          created_at: now(),
        })
        .onConflict((oc) => oc.column("credential_id").doNothing())
        .execute();
      const stored = await readNotarization("n.credential_id", notarization.credentialId);
      if (!stored) throw new Error("notarization vanished after insert");
      return stored;
    },

    findNotarization: (objectId) => readNotarization("n.object_id", objectId),
    findNotarizationByCredential: (credentialId) => readNotarization("n.credential_id", credentialId),

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
          .select(["object_id", "salted_digest", sql<boolean>`created_at <= ${ago(now, intervalMs)}`.as("due")])
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
            created_at: now(),
            updated_at: now(),
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
        .set({ state: "running", attempts: sql`attempts + 1`, updated_at: now() })
        .where("batch_id", "=", batchId)
        .where("job_id", "=", jobId)
        .where("state", "in", ACTIVE_STATES)
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

    recordBatchAnchored(batchId, attempt, anchor, events) {
      return finishRunningBatch(
        batchId,
        attempt,
        {
          state: "anchored",
          anchor: json(anchor),
          anchored_at: now(),
          last_error: null,
          next_attempt_at: null,
          job_id: null,
        },
        (trx) => insertWebhookEvents(trx, send, events),
      );
    },

    recordBatchFailed(batchId, attempt, error, nextAttemptAt) {
      const jobId = randomUUID();
      return finishRunningBatch(
        batchId,
        attempt,
        { state: "failed", last_error: error, next_attempt_at: nextAttemptAt, job_id: jobId },
        (trx) =>
          send(
            trx,
            { queue: "anchor-batch", data: { batchId } },
            { id: jobId, delayMs: nextAttemptAt.getTime() - now().getTime() },
          ),
      );
    },

    recordBatchDead(batchId, attempt, error, events) {
      return finishRunningBatch(
        batchId,
        attempt,
        { state: "dead", last_error: error, next_attempt_at: null, job_id: null, dead_rounds: sql`dead_rounds + 1` },
        (trx) => insertWebhookEvents(trx, send, events),
      );
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
            .set({ state: "pending", attempts: 0, next_attempt_at: null, job_id: jobId, updated_at: now() })
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

    async listStranded(olderThanMs) {
      const rows = await db
        .selectFrom("batches")
        .select(["batch_id as id", "job_id"])
        .where("state", "in", ACTIVE_STATES)
        .where("updated_at", "<", ago(now, olderThanMs))
        .limit(500)
        .execute();
      return rows.map((row) => ({ kind: "batch" as const, id: row.id, jobId: row.job_id }));
    },

    async requeue(work) {
      if (work.kind !== "batch") return false;
      return db.transaction().execute(async (trx) => {
        const jobId = randomUUID();
        const updated = await trx
          .updateTable("batches")
          .set({ job_id: jobId, updated_at: now() })
          .where("batch_id", "=", work.id)
          .where("state", "in", ACTIVE_STATES)
          .where(sql<boolean>`job_id IS NOT DISTINCT FROM ${work.jobId}`)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return false;
        await send(trx, { queue: "anchor-batch", data: { batchId: work.id } }, { id: jobId });
        return true;
      });
    },

    async countByState() {
      const rows = await db
        .selectFrom("notarizations as n")
        .leftJoin("batches as b", "b.batch_id", "n.batch_id")
        .select([notarizationStateSql.as("state"), (eb) => eb.fn.countAll<number>().as("count")])
        .groupBy(notarizationStateSql)
        .execute();
      return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
    },

    async oldestUnanchoredAt() {
      const row = await db
        .selectFrom("notarizations as n")
        .leftJoin("batches as b", "b.batch_id", "n.batch_id")
        .select((eb) => eb.fn.min("n.created_at").as("oldest"))
        .where((eb) =>
          eb.or([eb("b.batch_id", "is", null), eb("b.state", "in", ["pending", "running", "failed", "dead"])]),
        )
        .executeTakeFirst();
      return row?.oldest ? new Date(row.oldest as Date) : undefined;
    },
  };
}
