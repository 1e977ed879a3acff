import { isDeepStrictEqual } from "node:util";
import type { KubeClient } from "../kube/kube-client.js";
import type { OperatorMetrics } from "../metrics.js";
import { toReconcileError } from "../reconcile/reconcile-error.js";
import type { Reconciler, ResourceCache } from "../reconcile/reconciler.js";
import { type CustomResource, objectKey, parseObjectKey, type ResourceKind } from "../resources.js";
import { blocked, type ConditionUpdate, findCondition, mergeConditions, retrying } from "./conditions.js";
import type { EventRecorder } from "./event-recorder.js";
import { addFinalizer, removeFinalizer } from "./finalizers.js";
import type { LeadershipFence } from "./leadership-fence.js";
import { type ReconcileOutcome, WorkQueue } from "./work-queue.js";

export interface ControllerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface ControllerOptions {
  kube: KubeClient;
  cache: ResourceCache;
  reconcilers: Reconciler[];
  events: EventRecorder;
  metrics?: OperatorMetrics;
  log?: ControllerLogger;
  now?: () => Date;
  /** Attempts of one reconcile in a row before giving up until the resource changes. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  concurrency?: number;
  /**
   * Runs each reconcile pass under the signal of the leadership term it started in; `kube` and the
   * reconcilers' clients should be fenced with it (fenceKube, fencePlatform), so that a pass stops
   * writing the moment `pause()` ends the term.
   */
  fence?: LeadershipFence;
}

export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_BASE_DELAY_MS = 1_000;
export const DEFAULT_MAX_DELAY_MS = 5 * 60_000;

const silent: ControllerLogger = { info() {}, warn() {}, error() {} };

/**
 * Up to date: this generation was handled and nothing is being retried. Such a resource is skipped
 * (its own status writes and resyncs cost no platform call).
 */
export function isUpToDate(resource: CustomResource): boolean {
  const status = resource.status;
  return (
    status?.observedGeneration !== undefined &&
    status.observedGeneration === resource.metadata.generation &&
    findCondition(status.conditions, "Reconciling")?.status !== "True"
  );
}

/**
 * Feeds informer events into a work queue and runs the reconcilers: finalizers, skip on
 * observedGeneration, status through the status subresource, Events on failure, bounded retries.
 * Only the leader processes the queue (`resume`/`pause`); every replica keeps its caches warm.
 */
export class Controller {
  readonly queue: WorkQueue;
  private readonly reconcilers: Map<ResourceKind, Reconciler>;
  /** Per key: what of an update counts as a change (generation, deletion, annotations). */
  private readonly seen = new Map<string, string>();
  /** Per key: what of an update matters to dependents (a Tenant's readiness). */
  private readonly seenByDependents = new Map<string, string>();
  /** Keys queued because something they depend on changed: they bypass the up-to-date skip once. */
  private readonly forced = new Set<string>();
  private readonly log: ControllerLogger;
  private readonly now: () => Date;
  private readonly maxAttempts: number;
  /** The current leadership term: aborted by pause(), a new one begun by resume(). */
  private term = new AbortController();

  constructor(private readonly options: ControllerOptions) {
    this.reconcilers = new Map(options.reconcilers.map((r) => [r.kind, r]));
    this.log = options.log ?? silent;
    this.now = options.now ?? (() => new Date());
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.queue = new WorkQueue({
      process: (key, attempt) => this.process(key, attempt),
      onExhausted: (key, error, attempts) =>
        this.options.fence
          ? this.options.fence.run(this.term.signal, () => this.exhausted(key, error, attempts))
          : this.exhausted(key, error, attempts),
      baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
      maxAttempts: this.maxAttempts,
      concurrency: options.concurrency,
    });
  }

  /** Informer callback. Status-only updates (our own writes) do not queue the resource again. */
  onEvent(kind: ResourceKind, verb: "add" | "update" | "delete", resource: CustomResource): void {
    const key = objectKey(kind, resource.metadata);
    const reconciler = this.reconcilers.get(kind);
    if (!reconciler) return;
    if (verb === "delete") {
      this.seen.delete(key);
      this.seenByDependents.delete(key);
      this.queue.forget(key);
      this.queueDependents(reconciler, resource);
      return;
    }
    const { generation, deletionTimestamp, annotations } = resource.metadata;
    const fingerprint = JSON.stringify([generation, deletionTimestamp ?? null, annotations ?? {}]);
    const previous = this.seen.get(key);
    if (previous !== fingerprint) {
      this.seen.set(key, fingerprint);
      if (previous !== undefined && JSON.parse(previous)[0] !== generation) this.queue.forget(key);
      this.queue.add(key);
    }
    const forDependents = JSON.stringify([
      generation,
      deletionTimestamp ?? null,
      findCondition(resource.status?.conditions, "Ready")?.status ?? null,
      (resource.status as { tenantUuid?: string } | undefined)?.tenantUuid ?? null,
    ]);
    if (this.seenByDependents.get(key) !== forDependents) {
      const first = !this.seenByDependents.has(key);
      this.seenByDependents.set(key, forDependents);
      if (!first) this.queueDependents(reconciler, resource);
    }
  }

  /** Starts processing the queue (leading): a new leadership term. */
  resume(): void {
    if (this.term.signal.aborted) this.term = new AbortController();
    this.queue.resume();
  }

  /**
   * Stops at once (leadership lost): nothing more is taken from the queue, and passes in flight are
   * abandoned at their next call through the fenced clients; their keys wait in the queue.
   */
  pause(): void {
    this.queue.pause();
    this.term.abort(new Error("leadership lost"));
  }

  stop(): void {
    this.queue.stop();
  }

  private queueDependents(reconciler: Reconciler, resource: CustomResource) {
    for (const key of reconciler.dependents?.(resource, this.options.cache) ?? []) {
      this.forced.add(key);
      this.queue.add(key);
    }
  }

  private process(key: string, attempt: number): Promise<ReconcileOutcome | undefined> {
    const signal = this.term.signal;
    const pass = () => this.processInTerm(key, attempt, signal);
    return this.options.fence ? this.options.fence.run(signal, pass) : pass();
  }

  private async processInTerm(
    key: string,
    attempt: number,
    signal: AbortSignal,
  ): Promise<ReconcileOutcome | undefined> {
    const { kind, namespace, name } = parseObjectKey(key);
    const reconciler = this.reconcilers.get(kind);
    const cached = this.options.cache.get(kind, namespace, name);
    if (!reconciler || !cached) return undefined;
    // A private copy: status written during this pass is tracked on it, never on the informer's object.
    const resource = structuredClone(cached);
    const stopTimer = this.options.metrics?.reconcileDuration.startTimer({ kind });
    const count = (result: string) => this.options.metrics?.reconciles.inc({ kind, result });
    try {
      if (resource.metadata.deletionTimestamp) {
        await this.finalize(reconciler, resource);
        count("finalized");
        return undefined;
      }
      const forced = this.forced.delete(key);
      if (!forced && isUpToDate(resource)) {
        count("skipped");
        return undefined;
      }
      let current = resource;
      if (reconciler.finalizer) current = await addFinalizer(this.options.kube, kind, resource, reconciler.finalizer);
      if (resource.status?.observedGeneration !== resource.metadata.generation) {
        await this.writeStatus(resource, {}, [
          { type: "Reconciling", status: "True", reason: "Progressing", message: "applying the desired state" },
        ]);
      }
      const result = await reconciler.reconcile(current);
      await this.writeStatus(resource, result.status, result.conditions, result.observed);
      if (result.event) await this.options.events.record(resource, "Normal", result.event.reason, result.event.message);
      count("success");
      return result.requeueAfterMs === undefined ? undefined : { requeueAfterMs: result.requeueAfterMs };
    } catch (error) {
      if (signal.aborted) {
        // Leadership was lost during this pass: it writes nothing more (not even its failure); the
        // key waits in the paused queue, and the new leader reconciles the resource.
        this.log.info({ key }, "reconcile abandoned: leadership lost");
        count("abandoned");
        this.queue.add(key);
        return undefined;
      }
      const failure = toReconcileError(error);
      this.log.warn({ key, reason: failure.reason, attempt, err: failure.message }, "reconcile failed");
      await this.options.events.record(resource, "Warning", failure.reason, failure.message);
      if (!failure.retryable) {
        await this.writeStatus(resource, {}, blocked(failure.reason, failure.message), true).catch(() => undefined);
        count("blocked");
        return undefined;
      }
      await this.writeStatus(resource, {}, retrying(failure.reason, failure.message, attempt, this.maxAttempts)).catch(
        () => undefined,
      );
      count("retry");
      throw failure;
    } finally {
      stopTimer?.();
    }
  }

  private async finalize(reconciler: Reconciler, resource: CustomResource) {
    const finalizer = reconciler.finalizer;
    if (!finalizer || !resource.metadata.finalizers?.includes(finalizer)) return;
    const outcome = reconciler.finalize ? await reconciler.finalize(resource) : undefined;
    if (outcome) await this.options.events.record(resource, "Normal", outcome.reason, outcome.message);
    await removeFinalizer(this.options.kube, reconciler.kind, resource, finalizer);
  }

  private async exhausted(key: string, error: unknown, attempts: number) {
    const { kind, namespace, name } = parseObjectKey(key);
    const cached = this.options.cache.get(kind, namespace, name);
    this.options.metrics?.reconciles.inc({ kind, result: "exhausted" });
    if (!cached) return;
    const resource = structuredClone(cached);
    const failure = toReconcileError(error);
    const message = `gave up after ${attempts} attempts: ${failure.message}; retried when the resource changes`;
    this.log.error({ key, reason: failure.reason }, "reconcile retries exhausted");
    await this.options.events.record(resource, "Warning", "RetriesExhausted", message);
    await this.writeStatus(resource, {}, [
      { type: "Ready", status: "False", reason: failure.reason, message: failure.message },
      { type: "Reconciling", status: "False", reason: "RetriesExhausted", message },
      { type: "Degraded", status: "True", reason: "RetriesExhausted", message },
    ]);
  }

  /** Writes status through the status subresource, and only when it changes. */
  private async writeStatus(
    resource: CustomResource,
    fields: Record<string, unknown>,
    conditions: ConditionUpdate[],
    observed = false,
  ) {
    const previous = resource.status ?? {};
    const next: Record<string, unknown> = {
      ...previous,
      ...fields,
      conditions: mergeConditions(previous.conditions, conditions, resource.metadata.generation, this.now()),
    };
    if (observed) next.observedGeneration = resource.metadata.generation;
    // A field the reconciler no longer sets goes: a merge patch keeps what it does not mention, so it is sent as null.
    const removed = Object.keys(next).filter((key) => next[key] === undefined || next[key] === null);
    for (const key of removed) delete next[key];
    if (isDeepStrictEqual(next, previous)) return;
    const patch: Record<string, unknown> = { ...next };
    for (const key of removed) if (key in previous) patch[key] = null;
    const updated = await this.options.kube.patchStatus(
      resource.kind as ResourceKind,
      resource.metadata.namespace,
      resource.metadata.name,
      patch,
    );
    // Later writes in this same pass build on what we just wrote, not on the stale cache copy.
    resource.status = updated.status ?? (next as CustomResource["status"]);
  }
}
