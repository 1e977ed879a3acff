import {
  ApiException,
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from "@kubernetes/client-node";
import { type CustomResource, GROUP, RESOURCE_KINDS, type ResourceKind, VERSION } from "../resources.js";
import {
  type JsonPatchOperation,
  KubeApiError,
  type KubeClient,
  KubeConflictError,
  type Lease,
  type Secret,
} from "./kube-client.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions("Content-Type", PatchStrategy.JsonPatch);

/** Maps client-node failures onto the operator's errors; `undefined` for 404 when `notFound` is "absent". */
async function call<T>(what: string, run: () => Promise<T>): Promise<T>;
async function call<T>(what: string, run: () => Promise<T>, notFound: "absent"): Promise<T | undefined>;
async function call<T>(what: string, run: () => Promise<T>, notFound?: "absent"): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiException) {
      if (error.code === 404 && notFound === "absent") return undefined;
      // A failed JSON patch `test` is 422 from the apiserver; both mean "your view is stale".
      if (error.code === 409 || error.code === 422) throw new KubeConflictError(`${what}: conflict (${error.code})`);
      throw new KubeApiError(`${what} failed with HTTP ${error.code}`, error.code);
    }
    throw error;
  }
}

/** KubeClient over @kubernetes/client-node 1.x (generic custom-object calls for CRDs and Leases). */
export function createKubeClient(kubeConfig: KubeConfig): KubeClient {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  // Leases go through the generic custom-object calls: typed V1Lease serialisation turns MicroTime
  // into millisecond timestamps, and we want to send exactly what the apiserver parses.
  const resource = (kind: ResourceKind, namespace: string, name: string) => ({
    group: GROUP,
    version: VERSION,
    plural: RESOURCE_KINDS[kind].plural,
    namespace,
    name,
  });
  const lease = (namespace: string, name: string) => ({
    group: "coordination.k8s.io",
    version: "v1",
    plural: "leases",
    namespace,
    name,
  });

  return {
    getResource: (kind, namespace, name) =>
      call(
        `get ${kind} ${namespace}/${name}`,
        async () => (await custom.getNamespacedCustomObject(resource(kind, namespace, name))) as CustomResource,
        "absent",
      ),
    patchStatus: (kind, namespace, name, status) =>
      call(
        `patch ${kind} ${namespace}/${name} status`,
        async () =>
          (await custom.patchNamespacedCustomObjectStatus(
            { ...resource(kind, namespace, name), body: { status } },
            mergePatch,
          )) as CustomResource,
      ),
    jsonPatch: (kind, namespace, name, operations: JsonPatchOperation[]) =>
      call(
        `patch ${kind} ${namespace}/${name}`,
        async () =>
          (await custom.patchNamespacedCustomObject(
            { ...resource(kind, namespace, name), body: operations },
            jsonPatch,
          )) as CustomResource,
      ),
    getSecret: (namespace, name) =>
      call(
        `get Secret ${namespace}/${name}`,
        async () => toSecret(await core.readNamespacedSecret({ namespace, name })),
        "absent",
      ),
    createSecret: (secret) =>
      call(`create Secret ${secret.metadata.namespace}/${secret.metadata.name}`, async () =>
        toSecret(
          await core.createNamespacedSecret({
            namespace: secret.metadata.namespace,
            body: { apiVersion: "v1", kind: "Secret", ...secret } as V1Secret,
          }),
        ),
      ),
    patchSecretData: (namespace, name, data) =>
      call(`patch Secret ${namespace}/${name}`, async () =>
        toSecret(await core.patchNamespacedSecret({ namespace, name, body: { data } }, mergePatch)),
      ),
    createEvent: async (event) => {
      const created = await call(`create Event in ${event.metadata.namespace}`, () =>
        core.createNamespacedEvent({
          namespace: event.metadata.namespace,
          body: {
            ...event,
            firstTimestamp: new Date(event.firstTimestamp),
            lastTimestamp: new Date(event.lastTimestamp),
          } as unknown as CoreV1Event,
        }),
      );
      return created.metadata?.name ?? "";
    },
    patchEvent: async (namespace, name, repeat) => {
      // The body goes out as JSON as given: lastTimestamp stays the RFC 3339 string the apiserver parses.
      await call(`patch Event ${namespace}/${name}`, () =>
        core.patchNamespacedEvent({ namespace, name, body: repeat }, mergePatch),
      );
    },
    getLease: (namespace, name) =>
      call(
        `get Lease ${namespace}/${name}`,
        async () => (await custom.getNamespacedCustomObject(lease(namespace, name))) as Lease,
        "absent",
      ),
    createLease: (body) =>
      call(
        `create Lease ${body.metadata.namespace}/${body.metadata.name}`,
        async () =>
          (await custom.createNamespacedCustomObject({
            ...lease(body.metadata.namespace, body.metadata.name),
            body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...body },
          })) as Lease,
      ),
    replaceLease: (body) =>
      call(
        `replace Lease ${body.metadata.namespace}/${body.metadata.name}`,
        async () =>
          (await custom.replaceNamespacedCustomObject({
            ...lease(body.metadata.namespace, body.metadata.name),
            body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...body },
          })) as Lease,
      ),
  };
}

function toSecret(secret: V1Secret): Secret {
  return {
    metadata: {
      name: secret.metadata?.name ?? "",
      namespace: secret.metadata?.namespace ?? "",
      resourceVersion: secret.metadata?.resourceVersion,
      labels: secret.metadata?.labels,
      annotations: secret.metadata?.annotations,
      ownerReferences: secret.metadata?.ownerReferences?.map((ref) => ({
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        name: ref.name,
        uid: ref.uid,
        controller: ref.controller,
        blockOwnerDeletion: ref.blockOwnerDeletion,
      })),
    },
    type: secret.type,
    data: secret.data,
  };
}
