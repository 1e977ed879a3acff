import { KubeApiError, type KubeClient } from "../kube/kube-client.js";
import type { CustomResource } from "../resources.js";

export interface EventRecorder {
  record(resource: CustomResource, type: "Normal" | "Warning", reason: string, message: string): Promise<void>;
}

/** A repeat within this time of the last one counts on the same Event (client-go's aggregation interval). */
export const EVENT_AGGREGATION_WINDOW_MS = 10 * 60_000;
/** Events remembered for aggregation, the least recently recorded forgotten first (client-go's cache size). */
export const EVENT_CACHE_SIZE = 4096;

interface Recorded {
  name: string;
  namespace: string;
  count: number;
  lastAt: number;
}

/**
 * Records core/v1 Events the way client-go's EventRecorder does with its correlator: an Event that
 * repeats one recorded for the same object (uid, kind, name), type, reason and message within
 * `EVENT_AGGREGATION_WINDOW_MS` is not created again; the recorded one's `count` and `lastTimestamp`
 * are patched. A retry loop therefore leaves one Event counting its attempts, not one per attempt.
 * When the recorded Event is gone (expired by the apiserver's TTL), a new one is created. Repeats of
 * one Event are written one after another, so that concurrent ones cannot both create. A failure to
 * record is reported to `onError`, never fails a reconcile.
 */
export function createEventRecorder(options: {
  kube: KubeClient;
  component: string;
  instance: string;
  now: () => Date;
  onError?: (error: unknown) => void;
}): EventRecorder {
  const recorded = new Map<string, Recorded>();
  const writing = new Map<string, Promise<void>>();

  const remember = (key: string, entry: Recorded) => {
    recorded.delete(key);
    recorded.set(key, entry);
    if (recorded.size > EVENT_CACHE_SIZE) {
      const oldest = recorded.keys().next().value;
      if (oldest !== undefined) recorded.delete(oldest);
    }
  };

  async function write(
    key: string,
    resource: CustomResource,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
  ) {
    const now = options.now();
    const time = now.toISOString();
    const previous = recorded.get(key);
    if (previous && now.getTime() - previous.lastAt < EVENT_AGGREGATION_WINDOW_MS) {
      const count = previous.count + 1;
      try {
        await options.kube.patchEvent(previous.namespace, previous.name, { count, lastTimestamp: time });
        remember(key, { ...previous, count, lastAt: now.getTime() });
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404)) throw error;
        recorded.delete(key);
      }
    }
    const namespace = resource.metadata.namespace;
    const name = await options.kube.createEvent({
      metadata: { generateName: `${resource.metadata.name}.`, namespace },
      involvedObject: {
        apiVersion: resource.apiVersion,
        kind: resource.kind,
        name: resource.metadata.name,
        namespace,
        uid: resource.metadata.uid,
        resourceVersion: resource.metadata.resourceVersion,
      },
      type,
      reason,
      message,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      source: { component: options.component, host: options.instance },
      reportingComponent: `attesto.dev/${options.component}`,
      reportingInstance: options.instance,
    });
    remember(key, { name, namespace, count: 1, lastAt: now.getTime() });
  }

  return {
    record(resource, type, reason, message) {
      const text = message.slice(0, 1024);
      const { namespace, name, uid } = resource.metadata;
      const key = JSON.stringify([resource.apiVersion, resource.kind, namespace, name, uid ?? "", type, reason, text]);
      const next = (writing.get(key) ?? Promise.resolve())
        .then(() => write(key, resource, type, reason, text))
        .catch((error: unknown) => options.onError?.(error));
      writing.set(key, next);
      void next.then(() => {
        if (writing.get(key) === next) writing.delete(key);
      });
      return next;
    },
  };
}
