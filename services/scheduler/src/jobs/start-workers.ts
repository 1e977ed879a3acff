import { startPollingLoop } from "@attesto/runtime/polling-loop";
import { anchorBatch } from "../domain/anchor-batch.js";
import { cutDueBatches } from "../domain/cut-batches.js";
import { deliverWebhook, dispatchWebhookEvent } from "../domain/deliver-webhook.js";
import type { SchedulerDependencies } from "../domain/ports.js";
import { reconcileStrandedWork } from "../domain/reconcile.js";

export interface WorkerOptions {
  notaryConcurrency: number;
  webhookConcurrency: number;
  reconcileIntervalMs: number;
  /** Between batch-cutter passes while no notarization is pending (JOB_IDLE_POLLING_INTERVAL_MS). */
  idleIntervalMs: number;
  /** Non-terminal work untouched this long is checked for a lost job. */
  strandedAfterMs: number;
  shutdownGraceMs: number;
  onError(error: unknown, activity: string): void;
}

/**
 * The background side of the scheduler: queue workers for anchoring and webhooks, the batch
 * cutter and the reconciler. All state is in PostgreSQL; any replica may run any of it.
 *
 * The cutter polls every tick while notarizations are pending and is woken by this process's own
 * enqueues, so a credential enqueued here waits at most the batch interval plus one tick; while
 * none is pending it polls at the idle interval, which bounds the wait of one enqueued by a replica
 * that stopped before cutting it.
 */
export async function startWorkers(deps: SchedulerDependencies, options: WorkerOptions): Promise<() => Promise<void>> {
  const queue = deps.jobs;
  await queue.work("anchor-batch", options.notaryConcurrency, (data, jobId) => anchorBatch(deps, data.batchId, jobId));
  await queue.work("dispatch-webhook-event", options.webhookConcurrency, (data) =>
    dispatchWebhookEvent(deps, data.eventId),
  );
  await queue.work("deliver-webhook", options.webhookConcurrency, (data, jobId) =>
    deliverWebhook(deps, data.deliveryId, jobId),
  );
  const tickMs = Math.min(1000, Math.max(20, Math.floor(deps.batch.intervalMs / 2)));
  const cutter = startPollingLoop({
    intervalMs: tickMs,
    idleIntervalMs: options.idleIntervalMs,
    tick: async () => (await cutDueBatches(deps)).pendingLeft,
    onError: (error) => options.onError(error, "batch cutter"),
    wakeOn: deps.batch.enqueued,
  });
  const reconciler = startPollingLoop({
    intervalMs: options.reconcileIntervalMs,
    tick: async () => {
      await reconcileStrandedWork(
        { stores: [deps.notarizations, deps.events, deps.deliveries], jobs: queue },
        options.strandedAfterMs,
      );
      return true;
    },
    onError: (error) => options.onError(error, "reconciler"),
  });
  return async () => {
    await Promise.all([cutter.stop(), reconciler.stop()]);
    await queue.stop(options.shutdownGraceMs);
  };
}
