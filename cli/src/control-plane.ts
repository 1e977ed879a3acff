import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  type Condition,
  Controller,
  type ControllerLogger,
  type CustomResource,
  createEventRecorder,
  createReconcilers,
  findCondition,
  type Platform,
  type ResourceKind,
} from "@attesto/operator/library";
import { LocalCluster, type RevealedCredential } from "./local-cluster/local-cluster.js";
import { readState, STATE_FILE, withStateLock, writeState } from "./local-cluster/state-file.js";
import type { Manifest } from "./manifests/validate-manifest.js";

/**
 * The local control plane: Tenant, Issuer and VerifierPolicy resources reconciled into the platform
 * by the operator's own controller and reconcilers, with a state file in the data folder in place of
 * the Kubernetes API (local-cluster/). Used by `attesto apply|delete` and the all-in-one's
 * ATTESTO_CONFIG_DIR.
 */
export interface ControlPlaneOptions {
  /** The data folder holding control-plane.json (and its lock). */
  dataDir: string;
  platform: Platform;
  /** Receives each API key or webhook secret the platform reveals (once). */
  reveal(credential: RevealedCredential): void;
  now?: () => Date;
  log?: ControllerLogger;
  /** Attempts of a failing reconcile before the resource is left Degraded (default 4). */
  maxAttempts?: number;
  /** First retry delay in milliseconds, doubled per attempt (default 250). */
  baseDelayMs?: number;
}

export type ApplyAction = "created" | "configured" | "unchanged";

export interface ResourceOutcome {
  kind: ResourceKind | "Secret";
  namespace: string;
  name: string;
  action: ApplyAction | "deleted" | "deleting" | "not found";
  /** The Ready condition after the reconcile (absent for Secrets and deleted resources). */
  ready?: Condition;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isRetrying = (resource: CustomResource) => {
  const reconciling = findCondition(resource.status?.conditions, "Reconciling");
  return reconciling?.status === "True" && reconciling.reason === "Retrying";
};

export const statePathOf = (dataDir: string) => join(dataDir, STATE_FILE);

/** Reads the resources of the state file (no platform call). */
export function readResources(dataDir: string): CustomResource[] {
  return readState(statePathOf(dataDir)).resources;
}

/**
 * Loads the state under the lock, lets `change` write to it, then runs the controller until
 * nothing is queued or being retried (retries exhausted leave a resource Degraded).
 */
async function reconcileState<T>(
  options: ControlPlaneOptions,
  change: (cluster: LocalCluster, now: Date) => Promise<T>,
): Promise<{ result: T; cluster: LocalCluster }> {
  const path = statePathOf(options.dataDir);
  const now = options.now ?? (() => new Date());
  return withStateLock(options.dataDir, async () => {
    let controller: Controller | undefined;
    const cluster = new LocalCluster({
      state: readState(path),
      save: (state) => writeState(path, state),
      reveal: options.reveal,
      onChange: (kind, verb, resource) => controller?.onEvent(kind, verb, resource),
    });
    const deps = { kube: cluster, platform: options.platform, cache: cluster, now };
    controller = new Controller({
      kube: cluster,
      cache: cluster,
      reconcilers: createReconcilers(deps),
      events: createEventRecorder({ kube: cluster, component: "attesto-cli", instance: "local", now }),
      log: options.log,
      now,
      maxAttempts: options.maxAttempts ?? 4,
      baseDelayMs: options.baseDelayMs ?? 250,
      maxDelayMs: 2_000,
      concurrency: 1,
    });
    // What an informer's initial list delivers: every stored resource, up to date or not.
    for (const resource of structuredClone(cluster.state.resources)) {
      controller.onEvent(resource.kind as ResourceKind, "add", resource);
    }
    try {
      const result = await change(cluster, now());
      controller.resume();
      for (;;) {
        await controller.queue.idle();
        if (!cluster.state.resources.some(isRetrying)) break;
        await sleep(50);
      }
      return { result, cluster };
    } finally {
      controller.stop();
    }
  });
}

const readyOf = (cluster: LocalCluster, kind: ResourceKind, namespace: string, name: string) =>
  findCondition(cluster.get(kind, namespace, name)?.status?.conditions, "Ready");

/**
 * Applies manifests: new resources are created, changed specs get a new generation, and every
 * applied resource is reconciled again (the platform calls are idempotent), so that a platform
 * reset is repaired by applying again.
 */
export async function applyManifests(
  manifests: readonly Manifest[],
  options: ControlPlaneOptions,
): Promise<ResourceOutcome[]> {
  const { result, cluster } = await reconcileState(options, async (cluster, now) =>
    manifests.map((manifest): ResourceOutcome => {
      if (manifest.type === "secret") {
        const { namespace, name } = manifest.secret.metadata;
        const existing = cluster.state.secrets.find(
          (s) => s.metadata.namespace === namespace && s.metadata.name === name,
        );
        cluster.putSecret(manifest.secret);
        const action = !existing
          ? "created"
          : isDeepStrictEqual(existing, manifest.secret)
            ? "unchanged"
            : "configured";
        return { kind: "Secret", namespace, name, action };
      }
      const declared = manifest.resource;
      const { namespace, name } = declared.metadata;
      const existing = cluster.get(declared.kind, namespace, name);
      if (existing?.metadata.deletionTimestamp) {
        throw new Error(`${declared.kind} ${namespace}/${name} is being deleted; apply it again once it is gone`);
      }
      const specChanged = !existing || !isDeepStrictEqual(existing.spec, declared.spec);
      const metadata = {
        ...declared.metadata,
        uid: existing?.metadata.uid ?? randomUUID(),
        generation: (existing?.metadata.generation ?? 0) + (specChanged ? 1 : 0),
        creationTimestamp: existing?.metadata.creationTimestamp ?? now.toISOString(),
        finalizers: existing?.metadata.finalizers,
      };
      // Without observedGeneration the controller reconciles it now, changed or not.
      const { observedGeneration: _observed, ...status } = existing?.status ?? {};
      cluster.put({ ...declared, metadata, status: existing ? status : undefined });
      return {
        kind: declared.kind,
        namespace,
        name,
        action: !existing ? "created" : specChanged ? "configured" : "unchanged",
      };
    }),
  );
  return result.map((outcome) =>
    outcome.kind === "Secret"
      ? outcome
      : { ...outcome, ready: readyOf(cluster, outcome.kind, outcome.namespace, outcome.name) },
  );
}

/**
 * Deletes the manifests' resources: each reconciler's finalizer runs first (a Tenant goes only once
 * no Issuer or VerifierPolicy refers to it), then the resource leaves the state. Secrets go at once.
 */
export async function deleteManifests(
  manifests: readonly Manifest[],
  options: ControlPlaneOptions,
): Promise<ResourceOutcome[]> {
  const { result, cluster } = await reconcileState(options, async (cluster, now) => {
    const outcomes: ResourceOutcome[] = [];
    for (const manifest of manifests) {
      if (manifest.type === "secret") {
        const { namespace, name } = manifest.secret.metadata;
        const removed = cluster.removeSecret(namespace, name);
        outcomes.push({ kind: "Secret", namespace, name, action: removed ? "deleted" : "not found" });
        continue;
      }
      const { kind, metadata } = manifest.resource;
      const found = await cluster.markDeleted(kind, metadata.namespace, metadata.name, now);
      outcomes.push({
        kind,
        namespace: metadata.namespace,
        name: metadata.name,
        action: found ? "deleted" : "not found",
      });
    }
    return outcomes;
  });
  return result.map((outcome) => {
    if (outcome.kind === "Secret" || outcome.action === "not found") return outcome;
    const remaining = cluster.get(outcome.kind, outcome.namespace, outcome.name);
    return remaining
      ? { ...outcome, action: "deleting", ready: findCondition(remaining.status?.conditions, "Ready") }
      : outcome;
  });
}
