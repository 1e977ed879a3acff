import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@attesto/store";
import { sql } from "kysely";
import type { JobRequest, NewWebhookEvent } from "../../src/domain/model.js";
import type { NewNotarization } from "../../src/domain/ports.js";
import type { JobInsertBuilder, JobSender } from "../../src/store/job-sender.js";
import { migrations } from "../../src/store/migrations/index.js";
import type { SchedulerTables } from "../../src/store/tables.js";

export interface QueuedJob {
  job: JobRequest;
  id: string;
  delayMs: number | undefined;
}

/**
 * A job sender that records what the stores queue (the job queue is not under test here). It
 * writes nothing itself, so a job only "exists" when the store's transaction (or statement)
 * committed; set `failNext` to make the next send (or insert) fail and check the store's write is
 * rolled back with it.
 */
export class RecordingJobSender {
  readonly jobs: QueuedJob[] = [];
  failNext = false;
  readonly send: JobSender = async (trx, job, { id, delayMs }) => {
    // Proves the send runs inside the store's transaction (the caller's connection).
    await sql`SELECT 1`.execute(trx);
    if (this.failNext) {
      this.failNext = false;
      throw new Error("job queue unavailable");
    }
    this.jobs.push({ job, id, delayMs });
  };

  /**
   * A job built into the store's own statement: a query over the job as JSON (or over an empty
   * list when the gate is false), so it is recorded only when that statement really queued it.
   */
  readonly insert: JobInsertBuilder = async (job, { id }) => {
    // `failNext`: a statement the database refuses, as a job insert that cannot be queued.
    const fails = this.failNext;
    this.failNext = false;
    return {
      when: (gate) =>
        fails
          ? sql`SELECT CAST(${"job queue unavailable"} AS uuid) AS id`
          : sql`SELECT x.id FROM json_to_recordset((CASE WHEN ${gate} THEN ${JSON.stringify([{ id }])} ELSE '[]' END)::text::json) AS x (id uuid)`,
      queued: () => {
        this.jobs.push({ job, id, delayMs: undefined });
      },
    };
  };

  /** Jobs queued on `queue`, in order. */
  on(queue: JobRequest["queue"]): QueuedJob[] {
    return this.jobs.filter((queued) => queued.job.queue === queue);
  }

  last(queue: JobRequest["queue"]): QueuedJob {
    const all = this.on(queue);
    const job = all[all.length - 1];
    if (!job) throw new Error(`no job queued on ${queue}`);
    return job;
  }
}

export function startStoreDatabase(): Promise<TestDatabase<SchedulerTables>> {
  return createTestDatabase<SchedulerTables>({ prefix: "scheduler_store", migrations });
}

export function newNotarization(overrides: Partial<NewNotarization> = {}): NewNotarization {
  const digest = randomUUID().replaceAll("-", "").padEnd(64, "0");
  return {
    objectId: randomUUID(),
    chain: "attesto-ledger",
    tenant: "acme",
    credentialId: randomUUID(),
    offerId: undefined,
    digest,
    salt: "00".repeat(16),
    saltedDigest: digest,
    ...overrides,
  };
}

export function newEvent(createdAt: Date, overrides: Partial<NewWebhookEvent> = {}): NewWebhookEvent {
  const eventId = randomUUID();
  return {
    eventId,
    dedupeKey: `test:${eventId}`,
    tenant: "acme",
    type: "credential.notarized",
    body: JSON.stringify({ id: eventId }),
    createdAt,
    ...overrides,
  };
}

/**
 * The service's clock in store tests: a year ahead of the database's, so a store that reads the
 * database's clock instead of this one fails; `advance` stands for time passing.
 */
export class TestClock {
  private current = new Date(Date.now() + 365 * 86_400_000);
  readonly now = () => new Date(this.current);
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}
