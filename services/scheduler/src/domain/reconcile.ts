import type { JobLiveness, StrandedWorkStore } from "./ports.js";

const QUEUE_OF = { batch: "anchor-batch", event: "dispatch-webhook-event", delivery: "deliver-webhook" } as const;

/**
 * Re-queues work whose job no longer exists or gave up: the queue's own retries ran out during a
 * long database or trust-registry outage, or a job was deleted by hand. Rows stay the source of
 * truth; a duplicate job is harmless because every job checks it is the row's current one.
 */
export async function reconcileStrandedWork(
  deps: { stores: StrandedWorkStore[]; jobs: JobLiveness },
  olderThanMs: number,
): Promise<number> {
  let requeued = 0;
  for (const store of deps.stores) {
    for (const work of await store.listStranded(olderThanMs)) {
      if (work.jobId && (await deps.jobs.isLive(QUEUE_OF[work.kind], work.jobId))) continue;
      if (await store.requeue(work)) requeued += 1;
    }
  }
  return requeued;
}
