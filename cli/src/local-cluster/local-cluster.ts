import {
  type CustomResource,
  type EventRepeat,
  type JsonPatchOperation,
  KubeApiError,
  type KubeClient,
  KubeConflictError,
  type KubeEvent,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ResourceCache,
  type ResourceKind,
  type Secret,
} from "@attesto/operator/library";
import { applyJsonPatch, JsonPatchTestFailed } from "./json-patch.js";
import type { ControlPlaneState } from "./state-file.js";

/** Keys of a Secret the reconcilers write that hold a credential the platform reveals once. */
export const REVEALED_SECRET_KEYS = ["api-key", "webhook-secret"] as const;
export type RevealedSecretKey = (typeof REVEALED_SECRET_KEYS)[number];

/** A credential revealed by the platform, handed over once (printed or written to a file), never stored. */
export interface RevealedCredential {
  /** The `tenant-id` of the Secret (the platform tenant). */
  tenantId: string;
  key: RevealedSecretKey;
  value: string;
}

export type WatchVerb = "add" | "update" | "delete";

export interface LocalClusterOptions {
  state: ControlPlaneState;
  /** Called after every change of the state, to persist it. */
  save(state: ControlPlaneState): void;
  reveal(credential: RevealedCredential): void;
  /** What an informer would see: every change of a resource. */
  onChange?(kind: ResourceKind, verb: WatchVerb, resource: CustomResource): void;
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
const decode = (value: string) => Buffer.from(value, "base64").toString("utf8");

/**
 * The Kubernetes API as the reconcilers use it, backed by a state file instead of an apiserver: the
 * same KubeClient and ResourceCache interfaces, with the apiserver behaviours the controller relies
 * on (resourceVersion checks on JSON patches, an object with a deletionTimestamp going away when its
 * last finalizer is removed, a Tenant's Secrets garbage-collected with it). Credentials the platform
 * reveals (API key, generated webhook secret) go to `reveal` and are not kept.
 */
export class LocalCluster implements KubeClient, ResourceCache {
  readonly events: KubeEvent[] = [];
  private revision: number;

  constructor(private readonly options: LocalClusterOptions) {
    this.revision = Math.max(0, ...options.state.resources.map((r) => Number(r.metadata.resourceVersion ?? 0)));
  }

  get state(): ControlPlaneState {
    return this.options.state;
  }

  get(kind: ResourceKind, namespace: string, name: string): CustomResource | undefined {
    return this.find(kind, namespace, name);
  }

  list(kind: ResourceKind): readonly CustomResource[] {
    return this.options.state.resources.filter((resource) => resource.kind === kind);
  }

  async getResource(kind: ResourceKind, namespace: string, name: string): Promise<CustomResource | undefined> {
    const found = this.find(kind, namespace, name);
    return found && structuredClone(found);
  }

  /** Stores a resource as given (new or replacing the one of that kind, namespace and name). */
  put(resource: CustomResource): CustomResource {
    const { kind, metadata } = resource;
    const stored = {
      ...structuredClone(resource),
      metadata: { ...resource.metadata, resourceVersion: this.nextRevision() },
    };
    const resources = this.options.state.resources;
    const index = resources.findIndex(
      (r) => r.kind === kind && r.metadata.namespace === metadata.namespace && r.metadata.name === metadata.name,
    );
    if (index >= 0) resources[index] = stored;
    else resources.push(stored);
    this.options.save(this.options.state);
    this.notify(kind as ResourceKind, index >= 0 ? "update" : "add", stored);
    return stored;
  }

  async patchStatus(kind: ResourceKind, namespace: string, name: string, status: object): Promise<CustomResource> {
    const current = this.require(kind, namespace, name);
    // A merge patch, as the apiserver's: null removes the field.
    const merged: Record<string, unknown> = { ...(current.status ?? {}), ...status };
    for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
    current.status = merged;
    current.metadata.resourceVersion = this.nextRevision();
    this.options.save(this.options.state);
    this.notify(kind, "update", current);
    return structuredClone(current);
  }

  async jsonPatch(
    kind: ResourceKind,
    namespace: string,
    name: string,
    operations: JsonPatchOperation[],
  ): Promise<CustomResource> {
    const current = this.require(kind, namespace, name);
    let patched: CustomResource;
    try {
      patched = applyJsonPatch(current, operations);
    } catch (error) {
      if (error instanceof JsonPatchTestFailed)
        throw new KubeConflictError(`${kind} ${namespace}/${name}: ${error.message}`);
      throw new KubeApiError(`${kind} ${namespace}/${name}: ${(error as Error).message}`, 422);
    }
    patched.metadata.resourceVersion = this.nextRevision();
    const resources = this.options.state.resources;
    const index = resources.indexOf(current);
    if (patched.metadata.deletionTimestamp && (patched.metadata.finalizers?.length ?? 0) === 0) {
      resources.splice(index, 1);
      this.collectSecretsOf(patched);
      this.options.save(this.options.state);
      this.notify(kind, "delete", patched);
    } else {
      resources[index] = patched;
      this.options.save(this.options.state);
      this.notify(kind, "update", patched);
    }
    return structuredClone(patched);
  }

  /**
   * Marks a resource for deletion: gone at once without finalizers, else once the controller has
   * removed them. Whether it existed.
   */
  async markDeleted(kind: ResourceKind, namespace: string, name: string, now: Date): Promise<boolean> {
    const current = this.find(kind, namespace, name);
    if (!current) return false;
    if (!current.metadata.deletionTimestamp) {
      await this.jsonPatch(kind, namespace, name, [
        { op: "add", path: "/metadata/deletionTimestamp", value: now.toISOString() },
      ]);
    }
    return true;
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const secret = this.findSecret(namespace, name);
    return secret && structuredClone(secret);
  }

  async createSecret(secret: Secret): Promise<Secret> {
    const { namespace, name } = secret.metadata;
    if (this.findSecret(namespace, name)) throw new KubeConflictError(`Secret ${namespace}/${name} already exists`);
    const stored: Secret = { ...structuredClone(secret), data: {} };
    this.options.state.secrets.push(stored);
    this.writeSecretData(stored, secret.data ?? {});
    return structuredClone(stored);
  }

  async patchSecretData(namespace: string, name: string, data: Record<string, string>): Promise<Secret> {
    const secret = this.findSecret(namespace, name);
    if (!secret) throw new KubeApiError(`Secret ${namespace}/${name} not found`, 404);
    this.writeSecretData(secret, data);
    return structuredClone(secret);
  }

  /** Stores a Secret declared in a manifest (replacing one of the same name). */
  putSecret(secret: Secret): void {
    const secrets = this.options.state.secrets;
    const index = secrets.findIndex(
      (s) => s.metadata.namespace === secret.metadata.namespace && s.metadata.name === secret.metadata.name,
    );
    if (index >= 0) secrets[index] = structuredClone(secret);
    else secrets.push(structuredClone(secret));
    this.options.save(this.options.state);
  }

  /** Removes a Secret; whether it existed. */
  removeSecret(namespace: string, name: string): boolean {
    const secret = this.findSecret(namespace, name);
    if (!secret) return false;
    this.options.state.secrets = this.options.state.secrets.filter((s) => s !== secret);
    this.options.save(this.options.state);
    return true;
  }

  async createEvent(event: KubeEvent): Promise<string> {
    const name = `${event.metadata.generateName}${this.events.length + 1}`;
    this.events.push({ ...event, metadata: { ...event.metadata, name } });
    return name;
  }

  async patchEvent(namespace: string, name: string, repeat: EventRepeat): Promise<void> {
    const event = this.events.find((e) => e.metadata.namespace === namespace && e.metadata.name === name);
    if (!event) throw new KubeApiError(`Event ${namespace}/${name} not found`, 404);
    Object.assign(event, repeat);
  }

  async getLease(): Promise<undefined> {
    return undefined;
  }

  async createLease(): Promise<never> {
    throw new KubeApiError("the local control plane has no leader election", 501);
  }

  async replaceLease(): Promise<never> {
    throw new KubeApiError("the local control plane has no leader election", 501);
  }

  /**
   * Writes a Secret's data. On Secrets the reconcilers manage, the credentials the platform reveals
   * are handed to `reveal` and kept only as "revealed" markers (the Secret still exists, so that the
   * Tenant reconciler does not ask for a new key).
   */
  private writeSecretData(secret: Secret, data: Record<string, string>) {
    const managed = secret.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;
    const merged = { ...(secret.data ?? {}), ...data };
    const tenantId = merged["tenant-id"] === undefined ? "" : decode(merged["tenant-id"]);
    for (const [key, value] of Object.entries(data)) {
      if (managed && (REVEALED_SECRET_KEYS as readonly string[]).includes(key)) {
        this.options.reveal({ tenantId, key: key as RevealedSecretKey, value: decode(value) });
        delete merged[key];
      }
    }
    secret.data = merged;
    this.options.save(this.options.state);
  }

  /** What Kubernetes garbage collection does: Secrets owned by a deleted resource go with it. */
  private collectSecretsOf(owner: CustomResource) {
    const uid = owner.metadata.uid;
    if (!uid) return;
    this.options.state.secrets = this.options.state.secrets.filter(
      (secret) => !secret.metadata.ownerReferences?.some((ref) => ref.uid === uid),
    );
  }

  private find(kind: ResourceKind, namespace: string, name: string) {
    return this.options.state.resources.find(
      (r) => r.kind === kind && r.metadata.namespace === namespace && r.metadata.name === name,
    );
  }

  private require(kind: ResourceKind, namespace: string, name: string) {
    const found = this.find(kind, namespace, name);
    if (!found) throw new KubeApiError(`${kind} ${keyOf(namespace, name)} not found`, 404);
    return found;
  }

  private findSecret(namespace: string, name: string) {
    return this.options.state.secrets.find((s) => s.metadata.namespace === namespace && s.metadata.name === name);
  }

  private nextRevision() {
    this.revision += 1;
    return String(this.revision);
  }

  private notify(kind: ResourceKind, verb: WatchVerb, resource: CustomResource) {
    this.options.onChange?.(kind, verb, structuredClone(resource));
  }
}
