import type { KubeClient } from "../kube/kube-client.js";
import type { CustomResource } from "../resources.js";

export interface EventRecorder {
  record(resource: CustomResource, type: "Normal" | "Warning", reason: string, message: string): Promise<void>;
}

/** Records core/v1 Events; a failure to record is logged, never fails a reconcile. */
export function createEventRecorder(options: {
  kube: KubeClient;
  component: string;
  instance: string;
  now: () => Date;
  onError?: (error: unknown) => void;
}): EventRecorder {
  return {
    async record(resource, type, reason, message) {
      const time = options.now().toISOString();
      await options.kube
        .createEvent({
          metadata: { generateName: `${resource.metadata.name}.`, namespace: resource.metadata.namespace },
          involvedObject: {
            apiVersion: resource.apiVersion,
            kind: resource.kind,
            name: resource.metadata.name,
            namespace: resource.metadata.namespace,
            uid: resource.metadata.uid,
            resourceVersion: resource.metadata.resourceVersion,
          },
          type,
          reason,
          message: message.slice(0, 1024),
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
          source: { component: options.component, host: options.instance },
          reportingComponent: `attesto.dev/${options.component}`,
          reportingInstance: options.instance,
        })
        .catch((error: unknown) => options.onError?.(error));
    },
  };
}
