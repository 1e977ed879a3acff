import type { CustomResource, ResourceKind } from "../resources.js";

/**
 * What the operator needs from the Kubernetes API, and nothing more. Reconcilers receive this
 * interface, so that their tests use an in-memory double; `createKubeClient` implements it with
 * @kubernetes/client-node (tested against a local server speaking the API protocol).
 */
export interface KubeClient {
  /** The current object, or undefined when it does not exist. */
  getResource(kind: ResourceKind, namespace: string, name: string): Promise<CustomResource | undefined>;
  /** Merge-patches `status` through the status subresource (never touches spec or metadata). */
  patchStatus(kind: ResourceKind, namespace: string, name: string, status: object): Promise<CustomResource>;
  /** Applies a JSON patch (RFC 6902) to the object; a failed `test` is a KubeConflictError. */
  jsonPatch(
    kind: ResourceKind,
    namespace: string,
    name: string,
    operations: JsonPatchOperation[],
  ): Promise<CustomResource>;

  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  /** Creates a Secret; KubeConflictError when it already exists. */
  createSecret(secret: Secret): Promise<Secret>;
  /** Merge-patches a Secret's data. */
  patchSecretData(namespace: string, name: string, data: Record<string, string>): Promise<Secret>;

  /** Records a core/v1 Event; answers the name it was given (from `generateName`). */
  createEvent(event: KubeEvent): Promise<string>;
  /** Merge-patches a recorded Event with a repeat of it; KubeApiError with status 404 when it is gone. */
  patchEvent(namespace: string, name: string, repeat: EventRepeat): Promise<void>;

  getLease(namespace: string, name: string): Promise<Lease | undefined>;
  /** Creates a Lease; KubeConflictError when it exists. */
  createLease(lease: Lease): Promise<Lease>;
  /** Replaces a Lease; KubeConflictError when `metadata.resourceVersion` is stale. */
  replaceLease(lease: Lease): Promise<Lease>;
}

export type JsonPatchOperation =
  | { op: "test"; path: string; value: unknown }
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Secret {
  apiVersion?: "v1";
  kind?: "Secret";
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
  };
  type?: string;
  /** Base64 values, as on the wire. */
  data?: Record<string, string>;
}

export interface KubeEvent {
  /** `name` is set by the apiserver (or the test double) from `generateName`. */
  metadata: { generateName: string; namespace: string; name?: string };
  involvedObject: {
    apiVersion: string;
    kind: string;
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
  };
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  source: { component: string; host?: string };
  reportingComponent: string;
  reportingInstance: string;
}

/** What a repeat of an Event changes (client-go's EventCorrelator: the same Event, counted). */
export interface EventRepeat {
  count: number;
  lastTimestamp: string;
}

export interface Lease {
  apiVersion?: "coordination.k8s.io/v1";
  kind?: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** RFC 3339 with microseconds (metav1.MicroTime). */
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** 409 Conflict, or a failed JSON patch `test` (422): the caller's view is stale; read again. */
export class KubeConflictError extends Error {
  override name = "KubeConflictError";
}

/** Any other failed Kubernetes API call, with its HTTP status. */
export class KubeApiError extends Error {
  override name = "KubeApiError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export const decodeSecretValue = (secret: Secret | undefined, key: string): string | undefined => {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
};

export const encodeSecretValue = (value: string) => Buffer.from(value, "utf8").toString("base64");

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the apiserver parses it. */
export const microTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
