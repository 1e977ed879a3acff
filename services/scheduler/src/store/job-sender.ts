import type { Expression, Kysely, RawBuilder, SqlBool } from "kysely";
import type { JobRequest } from "../domain/model.js";
import type { SchedulerTables } from "./tables.js";

export type SchedulerDb = Kysely<SchedulerTables>;

/**
 * Queues a job inside the caller's transaction (`trx`), under the job id the row records, to run
 * after `delayMs`. A delay rather than a time: the queue runs jobs by the database's clock, the
 * stores reckon in the service's (injected) clock.
 */
export type JobSender = (trx: SchedulerDb, job: JobRequest, options: { id: string; delayMs?: number }) => Promise<void>;

/**
 * One job's insert, to be made part of a statement of the caller's own (so that the caller's write
 * and the job commit together without a transaction around them). `when(gate)` is the insert as a
 * statement that queues the job only if `gate` holds, returning one row per job it queued;
 * `queued()` tells the queue once that statement queued it.
 */
export interface JobInsert {
  when(gate: Expression<SqlBool>): RawBuilder<unknown>;
  queued(): void;
}

/** Builds the insert of `job` under the job id the caller's row records (not run). */
export type JobInsertBuilder = (job: JobRequest, options: { id: string }) => Promise<JobInsert>;

/** The service's clock, as the stores read it: every timestamp they write or compare comes from it. */
export type Clock = () => Date;

/** `ms` before the clock's now. */
export const ago = (now: Clock, ms: number) => new Date(now().getTime() - ms);

/** Batches and deliveries in these states still have work to do (a job should exist for them). */
export const ACTIVE_STATES = ["pending", "running", "failed"] as const;
