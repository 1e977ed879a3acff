import { backoffDelayMs } from "@attesto/runtime/backoff";

/** Retries of a key spread +-10% around the exponential delay. */
const RETRY_JITTER = { min: 0.9, max: 1.1 };

/**
 * A keyed work queue in the manner of client-go's rate-limited workqueue: a key is never processed
 * twice at once, a key added while it is processed runs once more afterwards, and failures come back
 * after an exponential backoff through a timer (never by sleeping in the worker), at most
 * `maxAttempts` times in a row.
 */
export interface ReconcileOutcome {
  /** Run the key again after this delay (periodic re-checks, e.g. certificate expiry). */
  requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  process(key: string, attempt: number): Promise<ReconcileOutcome | undefined>;
  /** Called instead of a retry once `maxAttempts` attempts in a row failed. */
  onExhausted(key: string, error: unknown, attempts: number): Promise<void> | void;
  /** Called after each failed attempt that will be retried. */
  onRetry?(key: string, error: unknown, attempt: number, delayMs: number): Promise<void> | void;
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  concurrency?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added again while being processed. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly attempts = new Map<string, number>();
  private paused = true;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: WorkQueueOptions) {}

  /** Queues a key now (a pending delayed retry of it is superseded). */
  add(key: string): void {
    if (this.stopped) return;
    this.clearTimer(key);
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (!this.queued.has(key)) {
      this.queued.add(key);
      this.queue.push(key);
    }
    this.pump();
  }

  /** Queues a key after a delay, unless it is queued sooner. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Forgets a key's failure count (its desired state changed: retries start over). */
  forget(key: string): void {
    this.attempts.delete(key);
  }

  /** The backoff before retry number `attempt` (1-based): base * 2^(attempt-1), capped, with jitter. */
  backoffMs(attempt: number): number {
    return backoffDelayMs({ ...this.options, jitter: RETRY_JITTER }, attempt);
  }

  /** Starts processing (the leader); keys added while paused wait. */
  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Stops taking new keys for processing (leadership lost); in-flight work finishes. */
  pause(): void {
    this.paused = true;
  }

  stop(): void {
    this.stopped = true;
    this.paused = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  get depth(): number {
    return this.queue.length;
  }

  get retrying(): number {
    return this.timers.size;
  }

  /** Resolves when nothing is queued or running (delayed retries may still be pending). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private clearTimer(key: string) {
    const timer = this.timers.get(key);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(key);
    }
  }

  private pump() {
    const concurrency = this.options.concurrency ?? 4;
    while (!this.paused && this.active.size < concurrency) {
      const index = this.queue.findIndex((key) => !this.active.has(key));
      if (index < 0) break;
      const [key] = this.queue.splice(index, 1);
      if (key === undefined) break;
      this.queued.delete(key);
      this.active.add(key);
      void this.run(key);
    }
    if (this.queue.length === 0 && this.active.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async run(key: string) {
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    try {
      const outcome = await this.options.process(key, attempt);
      this.attempts.delete(key);
      if (outcome?.requeueAfterMs !== undefined && !this.dirty.has(key)) this.addAfter(key, outcome.requeueAfterMs);
    } catch (error) {
      if (attempt >= this.options.maxAttempts) {
        this.attempts.delete(key);
        await Promise.resolve(this.options.onExhausted(key, error, attempt)).catch(() => undefined);
      } else {
        this.attempts.set(key, attempt);
        const delayMs = this.backoffMs(attempt);
        await Promise.resolve(this.options.onRetry?.(key, error, attempt, delayMs)).catch(() => undefined);
        if (!this.dirty.has(key)) this.addAfter(key, delayMs);
      }
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
