import { NamingClient } from "@attesto/store";
import { sql } from "kysely";
import type { PoolConfig } from "pg";
import { type ConstructorOptions, fromKysely, PgBoss, type QueueOptions } from "pg-boss";
import type { QueueName } from "../domain/model.js";
import { queueNames } from "../domain/model.js";
import type { JobDataOf, JobQueue } from "../domain/ports.js";
import type { JobInsertBuilder, JobSender } from "../store/job-sender.js";

export interface JobQueueOptions {
  url: string;
  /** The queue's own schema (pg-boss installs and migrates it). */
  schema: string;
  poolMax: number;
  /** How often workers of a queue look for due jobs while the queue is active (see below). */
  pollingIntervalMs: number;
  /** How often they look while it is idle (≥ pollingIntervalMs; equal: no idle backoff). */
  idlePollingIntervalMs: number;
  superviseIntervalSeconds: number;
  /** A job active longer than this (per queue) is taken as crashed and run again. */
  expireInSeconds: Record<QueueName, number>;
  onError(error: Error): void;
}

type Handler<Q extends QueueName> = (data: JobDataOf<Q>, jobId: string) => Promise<void>;

const LIVE_STATES = new Set(["created", "retry", "active"]);
/** A queue polls at the active interval this long after its last send, due time or job. */
export const ACTIVE_WINDOW_MS = 60_000;
const NO_JOB = "00000000-0000-0000-0000-000000000000";

/**
 * The job queue: pg-boss in its own PostgreSQL schema. Handlers catch the failures they expect
 * and schedule their own next attempt (so the delivery log knows it); the queue's retries only
 * cover what escapes a handler (database errors) and jobs whose worker died (expiry).
 *
 * Idle backoff: every worker polls (one query each), so a scheduler with no work would still
 * query the database ten times a second. Workers therefore poll at `idlePollingIntervalMs`, and a
 * queue turns active, its workers woken at once and then every `pollingIntervalMs`, for
 * ACTIVE_WINDOW_MS after a job is sent through this process (and again when a delayed one
 * falls due) or a worker of it ran a job. So work this process creates is picked up as fast as
 * without the backoff; only jobs nobody here sent (another replica's, a crashed worker's expired
 * job) wait up to the idle interval.
 */
export class PgBossJobQueue implements JobQueue {
  private readonly boss: PgBoss;
  private readonly workerIds = new Map<string, string[]>();
  /** Per queue, until when (performance.now(), a monotonic timer like the pollers' own) it polls actively. */
  private readonly activeUntil = new Map<string, number>();
  private readonly activePollers = new Map<string, NodeJS.Timeout>();
  private readonly dueWakes = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly options: JobQueueOptions) {
    const bossOptions: ConstructorOptions & Pick<PoolConfig, "Client"> = {
      connectionString: options.url,
      schema: options.schema,
      max: options.poolMax,
      application_name: "scheduler-jobs",
      // The services' pg client, so pg-boss's parameterised statements (its job insert, complete,
      // the queue's reads) are prepared once per connection instead of parsed and planned on every
      // run, like every other statement of the process; on the embedded database that planning
      // runs in WASM (hack/bench README, "statement cost on the embedded database"). pg-boss 12
      // hands its options on to pg.Pool; its types do not list `Client`, so
      // test/job-queue-statements.test.ts checks that it is used.
      Client: NamingClient,
      superviseIntervalSeconds: options.superviseIntervalSeconds,
      monitorIntervalSeconds: options.superviseIntervalSeconds,
      schedule: false,
    };
    this.boss = new PgBoss(bossOptions);
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
    this.markActive(job.queue);
    if (delayMs && delayMs > 0) {
      const wake = setTimeout(() => {
        this.dueWakes.delete(wake);
        this.markActive(job.queue);
      }, delayMs);
      wake.unref();
      this.dueWakes.add(wake);
    }
  };

  /**
   * `job`'s insert as pg-boss writes it, for a statement of the caller's own. pg-boss's `send` with
   * a `db` adapter runs exactly one statement for a queue without `notify` (pg-boss 12.35.0:
   * `INSERT … SELECT … FROM json_to_recordset($1::text::json) … ON CONFLICT DO NOTHING RETURNING id`,
   * `$1` being the job as JSON; a second try happens only for `sendDebounced`). The adapter here
   * records that statement instead of running it, and the gate replaces `$1` with the job or an
   * empty list. Anything else (another statement count, another parameter) throws rather than
   * queue differently: a pg-boss upgrade that changes the shape fails the scheduler suite.
   */
  readonly insert: JobInsertBuilder = async (job, { id }) => {
    const statements: { text: string; values: unknown[] }[] = [];
    const recorder = {
      async executeSql(text: string, values?: unknown[]) {
        statements.push({ text, values: values ?? [] });
        return { rows: [{ id }] };
      },
    };
    await this.boss.send(job.queue, job.data, { id, db: recorder });
    const [statement] = statements;
    const parts = statement?.text.split(/\$1(?!\d)/) ?? [];
    const [before, after] = parts;
    if (
      statements.length !== 1 ||
      statement?.values.length !== 1 ||
      typeof statement.values[0] !== "string" ||
      before === undefined ||
      after === undefined ||
      parts.length !== 2 ||
      !/^\s*INSERT\s/i.test(before) ||
      /\$\d/.test(before + after)
    ) {
      throw new Error("pg-boss's job insert is not the one INSERT with one parameter ($1) this scheduler composes");
    }
    const payload = statement.values[0];
    return {
      when: (gate) => sql`${sql.raw(before)}(CASE WHEN ${gate} THEN ${payload} ELSE '[]' END)${sql.raw(after)}`,
      queued: () => this.markActive(job.queue),
    };
  };

  /** Puts `queue` on the active poll for ACTIVE_WINDOW_MS from now (waking its workers if it was idle). */
  private markActive(queue: string): void {
    if (this.stopped || this.options.idlePollingIntervalMs <= this.options.pollingIntervalMs) return;
    this.activeUntil.set(queue, performance.now() + ACTIVE_WINDOW_MS);
    if (this.activePollers.has(queue)) return;
    // Woken now, a worker's fetch may run before the sender commits: the next tick finds the job.
    this.wake(queue);
    const poller = setInterval(() => {
      if (performance.now() < (this.activeUntil.get(queue) ?? 0)) return this.wake(queue);
      clearInterval(poller);
      this.activePollers.delete(queue);
    }, this.options.pollingIntervalMs);
    poller.unref();
    this.activePollers.set(queue, poller);
  }

  private wake(queue: string): void {
    for (const id of this.workerIds.get(queue) ?? []) this.boss.notifyWorker(id);
  }

  async isLive(queue: string, jobId: string): Promise<boolean> {
    const [job] = await this.boss.findJobs(queue, { id: jobId });
    return job !== undefined && LIVE_STATES.has(job.state);
  }

  /** `concurrency` workers on `queue`, each running one job at a time. */
  async work<Q extends QueueName>(queue: Q, concurrency: number, handler: Handler<Q>): Promise<void> {
    const ids: string[] = [];
    this.workerIds.set(queue, ids);
    for (let i = 0; i < concurrency; i++) {
      ids.push(
        await this.boss.work<JobDataOf<Q>>(
          queue,
          { batchSize: 1, pollingIntervalSeconds: this.options.idlePollingIntervalMs / 1000 },
          async ([job]) => {
            if (!job) return;
            this.markActive(queue);
            await handler(job.data as JobDataOf<Q>, job.id);
          },
        ),
      );
    }
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    for (const timer of [...this.activePollers.values(), ...this.dueWakes]) clearTimeout(timer);
    this.activePollers.clear();
    this.dueWakes.clear();
    await this.boss.stop({ graceful: true, close: true, timeout: Math.max(graceMs, 1000) });
  }
}
