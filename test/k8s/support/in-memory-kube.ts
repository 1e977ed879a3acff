import {
  type CustomResource,
  type EventRepeat,
  type JsonPatchOperation,
  KubeApiError,
  type KubeClient,
  KubeConflictError,
  type KubeEvent,
  type Lease,
  type ResourceCache,
  type ResourceKind,
  type Secret,
} from "@attesto/operator";

/** A KubeClient and ResourceCache in memory, for reconciler unit tests (no HTTP, no informers). */
export class InMemoryKube implements KubeClient, ResourceCache {
  readonly resources = new Map<string, CustomResource>();
  readonly secrets = new Map<string, Secret>();
  readonly events: KubeEvent[] = [];
  readonly leases = new Map<string, Lease>();
  readonly jsonPatches: Array<{ kind: ResourceKind; name: string; operations: JsonPatchOperation[] }> = [];
  statusWrites = 0;
  private revision = 1;

  add(kind: ResourceKind, resource: Omit<CustomResource, "apiVersion" | "kind"> & { apiVersion?: string }) {
    const stored: CustomResource = {
      apiVersion: "attesto.dev/v1alpha1",
      kind,
      ...structuredClone(resource),
      metadata: {
        uid: `uid-${resource.metadata.name}`,
        generation: 1,
        creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, this.revision)).toISOString(),
        ...structuredClone(resource.metadata),
        resourceVersion: String(++this.revision),
      },
    };
    this.resources.set(`${kind}/${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    return stored;
  }

  get(kind: ResourceKind, namespace: string, name: string) {
    return this.resources.get(`${kind}/${namespace}/${name}`);
  }

  list(kind: ResourceKind) {
    return [...this.resources.entries()].filter(([key]) => key.startsWith(`${kind}/`)).map(([, value]) => value);
  }

  async getResource(kind: ResourceKind, namespace: string, name: string) {
    return structuredClone(this.get(kind, namespace, name));
  }

  async patchStatus(kind: ResourceKind, namespace: string, name: string, status: object) {
    const existing = this.get(kind, namespace, name);
    if (!existing) throw new Error("not found");
    this.statusWrites++;
    // A merge patch: null removes the field.
    const merged: Record<string, unknown> = { ...(existing.status ?? {}), ...structuredClone(status) };
    for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
    existing.status = merged;
    existing.metadata.resourceVersion = String(++this.revision);
    return structuredClone(existing);
  }

  async jsonPatch(kind: ResourceKind, namespace: string, name: string, operations: JsonPatchOperation[]) {
    this.jsonPatches.push({ kind, name, operations });
    const existing = this.get(kind, namespace, name);
    if (!existing) throw new Error("not found");
    for (const operation of operations) {
      if (operation.op === "test" && operation.path === "/metadata/resourceVersion") {
        if (operation.value !== existing.metadata.resourceVersion) throw new KubeConflictError("stale");
      }
    }
    for (const operation of operations) {
      if (operation.op === "add" && operation.path === "/metadata/finalizers") {
        existing.metadata.finalizers = operation.value as string[];
      } else if (operation.op === "add" && operation.path === "/metadata/finalizers/-") {
        existing.metadata.finalizers = [...(existing.metadata.finalizers ?? []), operation.value as string];
      } else if (operation.op === "remove") {
        const index = Number(operation.path.split("/").at(-1));
        existing.metadata.finalizers?.splice(index, 1);
      }
    }
    existing.metadata.resourceVersion = String(++this.revision);
    return structuredClone(existing);
  }

  async getSecret(namespace: string, name: string) {
    return structuredClone(this.secrets.get(`${namespace}/${name}`));
  }

  async createSecret(secret: Secret) {
    const key = `${secret.metadata.namespace}/${secret.metadata.name}`;
    if (this.secrets.has(key)) throw new KubeConflictError("exists");
    this.secrets.set(key, structuredClone(secret));
    return secret;
  }

  async patchSecretData(namespace: string, name: string, data: Record<string, string>) {
    const existing = this.secrets.get(`${namespace}/${name}`);
    if (!existing) throw new Error("not found");
    existing.data = { ...existing.data, ...data };
    return structuredClone(existing);
  }

  async createEvent(event: KubeEvent) {
    const name = `${event.metadata.generateName}${++this.revision}`;
    this.events.push({ ...structuredClone(event), metadata: { ...event.metadata, name } });
    return name;
  }

  async patchEvent(namespace: string, name: string, repeat: EventRepeat) {
    const event = this.events.find((e) => e.metadata.namespace === namespace && e.metadata.name === name);
    if (!event) throw new KubeApiError(`Event ${namespace}/${name} not found`, 404);
    Object.assign(event, structuredClone(repeat));
  }

  async getLease(namespace: string, name: string) {
    return structuredClone(this.leases.get(`${namespace}/${name}`));
  }

  async createLease(lease: Lease) {
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    if (this.leases.has(key)) throw new KubeConflictError("exists");
    const stored = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(++this.revision) },
    };
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  async replaceLease(lease: Lease) {
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const existing = this.leases.get(key);
    if (!existing || existing.metadata.resourceVersion !== lease.metadata.resourceVersion) {
      throw new KubeConflictError("stale");
    }
    const stored = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(++this.revision) },
    };
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  secretValue(namespace: string, name: string, key: string): string | undefined {
    const value = this.secrets.get(`${namespace}/${name}`)?.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
  }

  putSecret(namespace: string, name: string, data: Record<string, string>, owner?: CustomResource) {
    this.secrets.set(`${namespace}/${name}`, {
      metadata: {
        name,
        namespace,
        ownerReferences: owner
          ? [
              {
                apiVersion: owner.apiVersion,
                kind: owner.kind,
                name: owner.metadata.name,
                uid: owner.metadata.uid ?? "",
              },
            ]
          : undefined,
      },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
    });
  }
}
