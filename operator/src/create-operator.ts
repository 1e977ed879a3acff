import type { KubeConfig } from "@kubernetes/client-node";
import { Controller, type ControllerLogger } from "./controller/controller.js";
import { createEventRecorder } from "./controller/event-recorder.js";
import { fenceKube, fencePlatform, LeadershipFence } from "./controller/leadership-fence.js";
import { type HealthServer, startHealthServer } from "./health-server.js";
import { createKubeClient } from "./kube/create-kube-client.js";
import type { KubeClient } from "./kube/kube-client.js";
import { LeaderElector } from "./kube/leader-election.js";
import { type Informers, startInformers } from "./kube/start-informers.js";
import { createOperatorMetrics } from "./metrics.js";
import { createReconcilers } from "./reconcile/create-reconcilers.js";
import type { Platform, ResourceCache } from "./reconcile/reconciler.js";

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  platform: Platform;
  /** Defaults to createKubeClient(kubeConfig). */
  kube?: KubeClient;
  namespace?: string;
  identity: string;
  leaderElection?: { namespace: string; name: string; leaseDurationSeconds?: number; retryPeriodMs?: number } | false;
  http?: { host: string; port: number };
  log?: ControllerLogger;
  now?: () => Date;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface RunningOperator {
  controller: Controller;
  informers: Informers;
  elector?: LeaderElector;
  http?: HealthServer;
  isLeader(): boolean;
  close(): Promise<void>;
}

/** Wires informers, controller, leader election and the HTTP port; used by main.ts and the tests. */
export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const leaseKube = options.kube ?? createKubeClient(options.kubeConfig);
  // Reconciles write through fenced clients: nothing once this replica stops leading.
  const fence = new LeadershipFence();
  const kube = fenceKube(leaseKube, fence);
  const platform = fencePlatform(options.platform, fence);
  const now = options.now ?? (() => new Date());
  let informers: Informers | undefined;
  const cache: ResourceCache = {
    get: (kind, namespace, name) => informers?.cache.get(kind, namespace, name),
    list: (kind) => informers?.cache.list(kind) ?? [],
  };
  const deps = { kube, platform, cache, now };
  let controller: Controller | undefined;
  const metrics = createOperatorMetrics({ queueDepth: () => controller?.queue.depth ?? 0 });
  controller = new Controller({
    kube,
    cache,
    reconcilers: createReconcilers(deps),
    events: createEventRecorder({
      kube,
      component: "attesto-operator",
      instance: options.identity,
      now,
      onError: (error) => options.log?.warn({ err: String(error) }, "could not record an Event"),
    }),
    metrics,
    log: options.log,
    now,
    fence,
    maxAttempts: options.maxAttempts,
    baseDelayMs: options.baseDelayMs,
    maxDelayMs: options.maxDelayMs,
  });
  const running = controller;
  informers = await startInformers({
    kubeConfig: options.kubeConfig,
    namespace: options.namespace,
    onEvent: (kind, verb, resource) => running.onEvent(kind, verb, resource),
    onError: (kind, error) => options.log?.warn({ kind, err: String(error) }, "informer failed; restarting"),
  });
  const syncedInformers = informers;

  let elector: LeaderElector | undefined;
  let leading = false;
  const lead = (value: boolean) => {
    leading = value;
    metrics.leader.set(value ? 1 : 0);
    options.log?.info({ identity: options.identity }, value ? "leading: reconciling" : "not leading: standing by");
    if (value) running.resume();
    else running.pause();
  };
  if (options.leaderElection) {
    elector = new LeaderElector({
      kube: leaseKube,
      namespace: options.leaderElection.namespace,
      name: options.leaderElection.name,
      identity: options.identity,
      leaseDurationSeconds: options.leaderElection.leaseDurationSeconds,
      retryPeriodMs: options.leaderElection.retryPeriodMs,
      onStartedLeading: () => lead(true),
      onStoppedLeading: () => lead(false),
      onError: (error) => options.log?.warn({ err: String(error) }, "leader election"),
    });
    elector.start();
  } else {
    lead(true);
  }

  const http = options.http
    ? await startHealthServer({
        ...options.http,
        registry: metrics.registry,
        ready: () => syncedInformers.synced(),
        describe: () => ({ leader: leading }),
      })
    : undefined;

  return {
    controller: running,
    informers: syncedInformers,
    elector,
    http,
    isLeader: () => leading,
    async close() {
      running.stop();
      await elector?.stop();
      await syncedInformers.stop();
      await http?.close();
    },
  };
}
