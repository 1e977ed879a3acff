import { backoffDelayMs } from "@attesto/runtime/backoff";
import { mayRetry } from "./backoff.js";
import { describeError } from "./describe-error.js";
import type { LedgerAnchor } from "./model.js";
import type { SchedulerDependencies } from "./ports.js";
import { notarizationFailedEvent, notarizedEvent } from "./webhook-events.js";

/**
 * The ledger idempotency key of a batch: the same for every attempt and every round, so a job
 * that runs twice (a worker killed after the ledger wrote, a duplicate job, an operator retry of
 * a batch the ledger did record) anchors the root once.
 */
export const batchIdempotencyKey = (batchId: string) => `attesto-scheduler:batch:${batchId}`;

/**
 * One anchoring attempt of a batch (the `anchor-batch` job). The attempt is claimed (and counted)
 * before the ledger is called, so attempts interrupted by a crash count towards the limit too.
 * Success records the anchor and one `credential.notarized` event per credential; failure
 * schedules the next attempt with backoff, or dead-letters the batch with one
 * `credential.notarization_failed` event per credential.
 */
export async function anchorBatch(
  deps: Pick<SchedulerDependencies, "notarizations" | "ledger" | "metrics" | "now" | "anchorRetry">,
  batchId: string,
  jobId: string,
): Promise<void> {
  const claim = await deps.notarizations.claimBatchAttempt(batchId, jobId);
  if (!claim) return;
  const { record: batch, attempt } = claim;
  if (attempt > deps.anchorRetry.maxAttempts) {
    await deadLetter(deps, batchId, attempt, "attempts exhausted (the last ones were interrupted)", batch.deadRounds);
    return;
  }
  let anchor: LedgerAnchor;
  try {
    anchor = await deps.ledger.anchor({ batchId, root: batch.root });
  } catch (error) {
    const message = describeError(error);
    if (!mayRetry(deps.anchorRetry, attempt)) {
      await deadLetter(deps, batchId, attempt, message, batch.deadRounds);
      return;
    }
    const nextAttemptAt = new Date(deps.now().getTime() + backoffDelayMs(deps.anchorRetry, attempt));
    if (await deps.notarizations.recordBatchFailed(batchId, attempt, message, nextAttemptAt)) {
      deps.metrics.anchorAttempt("failed");
    }
    return;
  }
  const now = deps.now();
  const notarizations = await deps.notarizations.listBatchNotarizations(batchId);
  const events = notarizations.map((notarization) => notarizedEvent(notarization, anchor, now));
  if (await deps.notarizations.recordBatchAnchored(batchId, attempt, anchor, events)) {
    deps.metrics.anchorAttempt("anchored");
    for (const notarization of notarizations) {
      deps.metrics.anchored(Math.max(0, (now.getTime() - notarization.createdAt.getTime()) / 1000));
    }
  }
}

async function deadLetter(
  deps: Pick<SchedulerDependencies, "notarizations" | "metrics" | "now">,
  batchId: string,
  attempt: number,
  error: string,
  deadRounds: number,
): Promise<void> {
  const now = deps.now();
  const notarizations = await deps.notarizations.listBatchNotarizations(batchId);
  const events = notarizations.map((notarization) =>
    notarizationFailedEvent(notarization, { attempts: attempt, error, round: deadRounds + 1 }, now),
  );
  if (await deps.notarizations.recordBatchDead(batchId, attempt, error, events)) deps.metrics.anchorAttempt("dead");
}
