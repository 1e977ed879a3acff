import { CustomObjectsApi, type KubeConfig, type KubernetesObject, ListWatch, Watch } from "@kubernetes/client-node";
import type { ResourceCache } from "../reconcile/reconciler.js";
import { type CustomResource, GROUP, RESOURCE_KINDS, type ResourceKind, VERSION } from "../resources.js";

export interface Informers {
  cache: ResourceCache;
  /** True once every informer has listed its resources (readiness). */
  synced(): boolean;
  stop(): Promise<void>;
}

export interface StartInformersOptions {
  kubeConfig: KubeConfig;
  /** Watch one namespace; all namespaces when undefined. */
  namespace?: string;
  onEvent(kind: ResourceKind, verb: "add" | "update" | "delete", resource: CustomResource): void;
  onError?(kind: ResourceKind, error: unknown): void;
  /** Delay before an informer whose watch failed lists again (doubles up to 30 s). */
  restartDelayMs?: number;
}

/**
 * client-node's Watch asking for bookmarks (`allowWatchBookmarks=true`, as client-go's reflector
 * does): the apiserver then sends BOOKMARK events with its current resourceVersion, which the
 * ListWatch records, so that a watch of a quiet kind resumes from a recent resourceVersion instead of
 * one the apiserver has compacted away (410 Gone and a full re-list).
 */
export class BookmarkingWatch extends Watch {
  override watch(
    path: string,
    queryParams: Record<string, unknown>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(path, { ...queryParams, allowWatchBookmarks: true }, callback, done);
  }
}

/**
 * One list/watch informer per kind (@kubernetes/client-node's ListWatch, as `makeInformer` builds it,
 * with bookmarks). A watch answered 410 Gone (its resourceVersion expired; as an ERROR event or as
 * the HTTP status) makes the ListWatch list again and emit the differences: what changed meanwhile
 * as updates (a new resourceVersion), what appeared as adds, what went as deletes. An informer whose
 * list or watch fails otherwise is restarted after a growing delay: client-node stops it on errors.
 */
export async function startInformers(options: StartInformersOptions): Promise<Informers> {
  const api = options.kubeConfig.makeApiClient(CustomObjectsApi);
  const baseDelay = options.restartDelayMs ?? 1_000;
  const informers = new Map<
    ResourceKind,
    {
      informer: ListWatch<KubernetesObject>;
      state: { failures: number; failedSinceStart: boolean };
    }
  >();
  const synced = new Set<ResourceKind>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
    const plural = RESOURCE_KINDS[kind].plural;
    const path = options.namespace
      ? `/apis/${GROUP}/${VERSION}/namespaces/${options.namespace}/${plural}`
      : `/apis/${GROUP}/${VERSION}/${plural}`;
    const list = () =>
      options.namespace
        ? api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: options.namespace, plural })
        : api.listCustomObjectForAllNamespaces({ group: GROUP, version: VERSION, plural });
    const informer = new ListWatch<KubernetesObject>(path, new BookmarkingWatch(options.kubeConfig), list, false);
    const emit = (verb: "add" | "update" | "delete") => (object: KubernetesObject) =>
      options.onEvent(kind, verb, withKind(object, kind));
    informer.on("add", emit("add"));
    informer.on("update", emit("update"));
    informer.on("delete", emit("delete"));
    const state = { failures: 0, failedSinceStart: false };
    informer.on("error", (error) => {
      state.failedSinceStart = true;
      synced.delete(kind);
      // stop() aborts the watch, which client-node reports as an error: not one.
      if (stopped) return;
      options.onError?.(kind, error);
      state.failures++;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (!stopped) void run(kind);
        },
        Math.min(30_000, baseDelay * 2 ** (state.failures - 1)),
      );
      timers.add(timer);
    });
    informers.set(kind, { informer, state });
  }

  /** start() resolves after the list and the start of the watch; a failed list reported an error. */
  async function run(kind: ResourceKind) {
    const entry = informers.get(kind);
    if (!entry) return;
    entry.state.failedSinceStart = false;
    await entry.informer.start();
    if (!entry.state.failedSinceStart && !stopped) {
      entry.state.failures = 0;
      synced.add(kind);
    }
  }

  await Promise.all([...informers.keys()].map(run));

  return {
    cache: {
      get: (kind, namespace, name) => informers.get(kind)?.informer.get(name, namespace) as CustomResource | undefined,
      list: (kind) => (informers.get(kind)?.informer.list() ?? []) as unknown as CustomResource[],
    },
    synced: () => synced.size === informers.size,
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([...informers.values()].map((entry) => entry.informer.stop()));
    },
  };
}

/** List items come without apiVersion/kind; the operator's Events and patches need them. */
function withKind(object: KubernetesObject, kind: ResourceKind): CustomResource {
  const resource = object as unknown as CustomResource;
  if (!resource.kind) resource.kind = kind;
  if (!resource.apiVersion) resource.apiVersion = `${GROUP}/${VERSION}`;
  return resource;
}
