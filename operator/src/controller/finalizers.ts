import type { KubeClient } from "../kube/kube-client.js";
import type { CustomResource, ResourceKind } from "../resources.js";

/**
 * Finalizers change through JSON patches that first `test` the resourceVersion the decision was
 * made on: a concurrent writer (another controller's finalizer, a user edit) makes the patch fail
 * with a conflict instead of being overwritten. The array is never replaced whole.
 */
export async function addFinalizer(kube: KubeClient, kind: ResourceKind, resource: CustomResource, finalizer: string) {
  const { namespace, name, resourceVersion, finalizers } = resource.metadata;
  if (finalizers?.includes(finalizer)) return resource;
  return kube.jsonPatch(kind, namespace, name, [
    { op: "test", path: "/metadata/resourceVersion", value: resourceVersion },
    finalizers
      ? { op: "add", path: "/metadata/finalizers/-", value: finalizer }
      : { op: "add", path: "/metadata/finalizers", value: [finalizer] },
  ]);
}

export async function removeFinalizer(
  kube: KubeClient,
  kind: ResourceKind,
  resource: CustomResource,
  finalizer: string,
) {
  const { namespace, name, resourceVersion, finalizers } = resource.metadata;
  const index = finalizers?.indexOf(finalizer) ?? -1;
  if (index < 0) return resource;
  return kube.jsonPatch(kind, namespace, name, [
    { op: "test", path: "/metadata/resourceVersion", value: resourceVersion },
    { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
    { op: "remove", path: `/metadata/finalizers/${index}` },
  ]);
}
