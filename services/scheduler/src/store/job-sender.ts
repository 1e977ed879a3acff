import type { Kysely } from "kysely";
import type { JobRequest } from "../domain/model.js";
import type { SchedulerTables } from "./tables.js";

export type SchedulerDb = Kysely<SchedulerTables>;

/** Queues a job inside the caller's transaction (`trx`), under the job id the row records. */
export type JobSender = (
  trx: SchedulerDb,
  job: JobRequest,
  options: { id: string; startAfter?: Date },
) => Promise<void>;

/** Batches and deliveries in these states still have work to do (a job should exist for them). */
export const ACTIVE_STATES = ["pending", "running", "failed"] as const;
