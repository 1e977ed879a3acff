import { fromKysely, PgBoss, type QueueOptions } from "pg-boss";
import type { JobRequest, QueueName } from "../domain/model.js";
import { queueNames } from "../domain/model.js";
import type { JobLiveness } from "../domain/ports.js";
import type { JobSender } from "../store/job-sender.js";

export interface JobQueueOptions {
  url: string;
  /** The queue's own schema (pg-boss installs and migrates it). */
  schema: string;
  poolMax: number;
  pollingIntervalMs: number;
  superviseIntervalSeconds: number;
  /** A job active longer than this (per queue) is taken as crashed and run again. */
  expireInSeconds: Record<QueueName, number>;
  onError(error: Error): void;
}

type DataOf<Q extends QueueName> = Extract<JobRequest, { queue: Q }>["data"];
type Handler<Q extends QueueName> = (data: DataOf<Q>, jobId: string) => Promise<void>;

const LIVE_STATES = new Set(["created", "retry", "active"]);
const NO_JOB = "00000000-0000-0000-0000-000000000000";

/**
 * The job queue: pg-boss in its own PostgreSQL schema. Handlers catch the failures they expect
 * and schedule their own next attempt (so the delivery log knows it); the queue's retries only
 * cover what escapes a handler (database errors) and jobs whose worker died (expiry).
 */
export class PgBossJobQueue implements JobLiveness {
  private readonly boss: PgBoss;

  constructor(private readonly options: JobQueueOptions) {
    this.boss = new PgBoss({
      connectionString: options.url,
      schema: options.schema,
      max: options.poolMax,
      application_name: "scheduler-jobs",
      superviseIntervalSeconds: options.superviseIntervalSeconds,
      monitorIntervalSeconds: options.superviseIntervalSeconds,
      schedule: false,
    });
    this.boss.on("error", (error) => options.onError(error));
  }

  async start(): Promise<void> {
    await this.boss.start();
    for (const name of queueNames) {
      const settings: QueueOptions = {
        expireInSeconds: this.options.expireInSeconds[name],
        retryLimit: 20,
        retryDelay: 2,
        retryBackoff: true,
        retryDelayMax: 300,
      };
      if (await this.boss.getQueue(name)) await this.boss.updateQueue(name, settings);
      else await this.boss.createQueue(name, settings);
      // Fill pg-boss's queue cache now: a send inside a transaction must not need another connection
      // (on the embedded single-session database it would wait for the transaction forever).
      await this.boss.findJobs(name, { id: NO_JOB });
    }
  }

  /** Queues `job` inside the caller's kysely transaction. */
  readonly send: JobSender = async (trx, job, { id, delayMs }) => {
    // A number is seconds from the database's now (fractions allowed).
    const delay = delayMs && delayMs > 0 ? { startAfter: delayMs / 1000 } : {};
    await this.boss.send(job.queue, job.data, { id, ...delay, db: fromKysely(trx) });
  };

  async isLive(queue: string, jobId: string): Promise<boolean> {
    const [job] = await this.boss.findJobs(queue, { id: jobId });
    return job !== undefined && LIVE_STATES.has(job.state);
  }

  async work<Q extends QueueName>(queue: Q, concurrency: number, handler: Handler<Q>): Promise<void> {
    await this.boss.work<DataOf<Q>>(
      queue,
      {
        batchSize: 1,
        localConcurrency: concurrency,
        pollingIntervalSeconds: this.options.pollingIntervalMs / 1000,
      },
      async ([job]) => {
        if (job) await handler(job.data as DataOf<Q>, job.id);
      },
    );
  }

  async stop(graceMs: number): Promise<void> {
    await this.boss.stop({ graceful: true, close: true, timeout: Math.max(graceMs, 1000) });
  }
}
