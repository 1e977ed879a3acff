import { anchorBatch } from "../domain/anchor-batch.js";
import { cutDueBatches } from "../domain/cut-batches.js";
import { deliverWebhook, dispatchWebhookEvent } from "../domain/deliver-webhook.js";
import type { NotaryDependencies } from "../domain/ports.js";
import { reconcileStrandedWork } from "../domain/reconcile.js";
import type { PgBossJobQueue } from "./job-queue.js";

export interface WorkerOptions {
  notaryConcurrency: number;
  webhookConcurrency: number;
  reconcileIntervalMs: number;
  /** Non-terminal work untouched this long is checked for a lost job. */
  strandedAfterMs: number;
  shutdownGraceMs: number;
  onError(error: unknown, activity: string): void;
}

/** A timer loop that never overlaps itself; `stop()` waits for the running tick. */
function every(intervalMs: number, tick: () => Promise<unknown>, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .then(() => undefined, onError)
        .finally(schedule);
    }, intervalMs);
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/**
 * The background side of the scheduler: queue workers for anchoring and webhooks, the batch
 * cutter (a pending credential waits at most the batch interval, plus one tick) and the
 * reconciler. All state is in PostgreSQL; any replica may run any of it.
 */
export async function startWorkers(
  deps: NotaryDependencies,
  queue: PgBossJobQueue,
  options: WorkerOptions,
): Promise<() => Promise<void>> {
  await queue.work("anchor-batch", options.notaryConcurrency, (data, jobId) => anchorBatch(deps, data.batchId, jobId));
  await queue.work("dispatch-webhook-event", options.webhookConcurrency, (data) =>
    dispatchWebhookEvent(deps, data.eventId),
  );
  await queue.work("deliver-webhook", options.webhookConcurrency, (data, jobId) =>
    deliverWebhook(deps, data.deliveryId, jobId),
  );
  const tickMs = Math.min(1000, Math.max(20, Math.floor(deps.batch.intervalMs / 2)));
  const stopCutter = every(
    tickMs,
    () => cutDueBatches(deps),
    (error) => options.onError(error, "batch cutter"),
  );
  const stopReconciler = every(
    options.reconcileIntervalMs,
    () =>
      reconcileStrandedWork(
        { stores: [deps.notarizations, deps.events, deps.deliveries], jobs: queue },
        options.strandedAfterMs,
      ),
    (error) => options.onError(error, "reconciler"),
  );
  return async () => {
    await Promise.all([stopCutter(), stopReconciler()]);
    await queue.stop(options.shutdownGraceMs);
  };
}
