import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";

/**
 * A small in-memory Kubernetes API server speaking the parts of the protocol the operator uses:
 * list and watch (chunked JSON lines from a resourceVersion), get, create (name or generateName),
 * replace with resourceVersion preconditions, merge and JSON patches (with `test`), the status
 * subresource (spec and status written separately, `generation` bumped on spec changes), deletion
 * with finalizers (deletionTimestamp first) and garbage collection of owned objects.
 * Like the real apiserver it forgets old history (`compact()`, as etcd compaction does): a watch from
 * a resourceVersion older than that is answered `410 Gone` (`{"kind":"Status","code":410,"reason":
 * "Expired"}`, as an ERROR watch event by default, or as the HTTP status), and a watch asked with
 * `allowWatchBookmarks=true` receives BOOKMARK events (`sendBookmarks()`) carrying the current
 * resourceVersion. No kube-apiserver runs on these machines; @kubernetes/client-node's informers
 * run against this.
 */
export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: Array<{ uid: string; kind: string; name: string }>;
    generateName?: string;
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

interface Collection {
  /** "" for the core group. */
  group: string;
  version: string;
  plural: string;
}

interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string;
  body: unknown;
}

interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  collection: string;
  namespace: string;
  object: StoredObject;
  resourceVersion: number;
}

const KINDS: Record<string, string> = {
  tenants: "Tenant",
  issuers: "Issuer",
  verifierpolicies: "VerifierPolicy",
  secrets: "Secret",
  events: "Event",
  leases: "Lease",
};

/** Collections whose objects have a status subresource (spec/status written separately). */
const WITH_STATUS = new Set(["attesto.dev/tenants", "attesto.dev/issuers", "attesto.dev/verifierpolicies"]);

const collectionId = (c: Collection) => `${c.group}/${c.plural}`;
const apiVersionOf = (c: Collection) => (c.group ? `${c.group}/${c.version}` : c.version);
const clone = <T>(value: T): T => structuredClone(value);

export class FakeKubeApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, Map<string, StoredObject>>();
  private readonly log: WatchEvent[] = [];
  private readonly watchers = new Set<{
    collection: string;
    namespace?: string;
    bookmarks: boolean;
    res: ServerResponse;
  }>();
  /** Watches from a resourceVersion below this are expired (410 Gone): their events are forgotten. */
  private compactedRevision = 0;
  /** While set, new watch requests wait (an apiserver the informers cannot reach for a while). */
  private heldWatches: Array<() => void> | undefined;
  /** How an expired watch is answered: an ERROR event in a 200 stream (the apiserver's watch cache), or HTTP 410. */
  expiredWatchAnswer: "event" | "http" = "event";
  private readonly failures: Array<{ method: string; path: RegExp; status: number; remaining: number }> = [];
  private revision = 100;
  private server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.heldWatches = undefined;
    for (const watcher of this.watchers) watcher.res.end();
    this.watchers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  kubeConfig(): KubeConfig {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "operator", token: "test-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "operator", namespace: "default" }],
      currentContext: "fake",
    });
    return kubeConfig;
  }

  /** Makes the next `count` requests matching method and path fail with `status`. */
  failNext(method: string, path: RegExp, status: number, count = 1): void {
    this.failures.push({ method, path, status, remaining: count });
  }

  /** Ends every open watch (the informers reconnect from their last resourceVersion). */
  dropWatches(): void {
    for (const watcher of this.watchers) watcher.res.end();
    this.watchers.clear();
  }

  /** Ends every open watch and holds new ones until `releaseWatches()`: the informers miss what happens meanwhile. */
  holdWatches(): void {
    this.heldWatches ??= [];
    this.dropWatches();
  }

  /** Answers the watches held since `holdWatches()`. */
  releaseWatches(): void {
    const held = this.heldWatches ?? [];
    this.heldWatches = undefined;
    for (const answer of held) answer();
  }

  /** Watch requests waiting in `holdWatches()`. */
  get heldWatchCount(): number {
    return this.heldWatches?.length ?? 0;
  }

  /** Forgets the history up to now (etcd compaction): a watch from an older resourceVersion is 410 Gone. */
  compact(): void {
    this.compactedRevision = this.revision;
    this.log.splice(0);
  }

  /** The current resourceVersion (of the last write to any collection). */
  get resourceVersion(): string {
    return String(this.revision);
  }

  /** Sends every watch that allowed bookmarks a BOOKMARK with the current resourceVersion. */
  sendBookmarks(): void {
    for (const watcher of this.watchers) {
      if (!watcher.bookmarks) continue;
      const [group = "", plural = ""] = watcher.collection.split("/");
      const object = {
        kind: KINDS[plural] ?? "Object",
        apiVersion: group ? `${group}/v1alpha1` : "v1",
        metadata: { resourceVersion: String(this.revision) },
      };
      watcher.res.write(`${JSON.stringify({ type: "BOOKMARK", object })}\n`);
    }
  }

  // --- direct access for tests (what kubectl would do) ---

  get(group: string, plural: string, namespace: string, name: string): StoredObject | undefined {
    const found = this.objects.get(`${group}/${plural}`)?.get(`${namespace}/${name}`);
    return found ? clone(found) : undefined;
  }

  list(group: string, plural: string, namespace?: string): StoredObject[] {
    return [...(this.objects.get(`${group}/${plural}`)?.values() ?? [])]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .map(clone);
  }

  apply(group: string, version: string, plural: string, object: StoredObject): StoredObject {
    const collection = { group, version, plural };
    const namespace = object.metadata.namespace ?? "default";
    const existing = this.objects.get(collectionId(collection))?.get(`${namespace}/${object.metadata.name}`);
    if (!existing) return this.create(collection, namespace, clone(object));
    return this.update(collection, existing, { ...clone(existing), spec: clone(object.spec) }, "main");
  }

  delete(group: string, plural: string, namespace: string, name: string): void {
    const existing = this.objects.get(`${group}/${plural}`)?.get(`${namespace}/${name}`);
    if (!existing) throw new Error(`no ${plural} ${namespace}/${name}`);
    this.remove({ group, version: "", plural }, existing);
  }

  /** Bumps an object's resourceVersion as a concurrent writer would (e.g. another controller). */
  touch(group: string, plural: string, namespace: string, name: string, annotations: Record<string, string>): void {
    const existing = this.objects.get(`${group}/${plural}`)?.get(`${namespace}/${name}`);
    if (!existing) throw new Error(`no ${plural} ${namespace}/${name}`);
    const next = clone(existing);
    next.metadata.annotations = { ...(next.metadata.annotations as object), ...annotations };
    this.update({ group, version: "", plural }, existing, next, "metadata");
  }

  // --- protocol ---

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    const contentType = String(req.headers["content-type"] ?? "").split(";")[0] ?? "";
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return sendStatus(res, 400, "BadRequest", "body is not JSON");
    }
    const method = req.method ?? "GET";
    this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType, body });

    const failure = this.failures.find((f) => f.method === method && f.path.test(url.pathname) && f.remaining > 0);
    if (failure) {
      failure.remaining--;
      return sendStatus(res, failure.status, "InternalError", "injected failure");
    }

    const route = parsePath(url.pathname);
    if (!route) return sendStatus(res, 404, "NotFound", `no route ${url.pathname}`);
    const { collection, namespace, name, subresource } = route;
    const id = collectionId(collection);
    const store = this.objects.get(id) ?? new Map<string, StoredObject>();
    this.objects.set(id, store);

    try {
      if (!name) {
        if (method === "GET" && url.searchParams.get("watch") === "true") {
          const since = Number(url.searchParams.get("resourceVersion") || 0);
          const bookmarks = url.searchParams.get("allowWatchBookmarks") === "true";
          const answer = () => this.watch(collection, namespace, since, bookmarks, res);
          if (this.heldWatches) {
            this.heldWatches.push(answer);
            return;
          }
          return answer();
        }
        if (method === "GET") {
          const items = [...store.values()].filter((o) => !namespace || o.metadata.namespace === namespace);
          return sendJson(res, 200, {
            apiVersion: apiVersionOf(collection),
            kind: `${KINDS[collection.plural] ?? "Object"}List`,
            metadata: { resourceVersion: String(this.revision) },
            items: items.map(clone),
          });
        }
        if (method === "POST" && namespace) {
          const object = body as StoredObject;
          if (!object.metadata?.name && object.metadata?.generateName) {
            object.metadata.name = `${object.metadata.generateName}${randomUUID().slice(0, 8)}`;
          }
          if (store.has(`${namespace}/${object.metadata.name}`)) {
            return sendStatus(res, 409, "AlreadyExists", `${object.metadata.name} already exists`);
          }
          return sendJson(res, 201, this.create(collection, namespace, object));
        }
        return sendStatus(res, 405, "MethodNotAllowed", method);
      }

      const existing = store.get(`${namespace}/${name}`);
      if (!existing) return sendStatus(res, 404, "NotFound", `${collection.plural} "${name}" not found`);
      const part = subresource === "status" ? "status" : "main";
      if (method === "GET") return sendJson(res, 200, clone(existing));
      if (method === "DELETE") {
        this.remove(collection, existing);
        return sendJson(res, 200, { kind: "Status", apiVersion: "v1", status: "Success" });
      }
      if (method === "PUT") {
        const object = body as StoredObject;
        const expected = object.metadata?.resourceVersion;
        if (expected && expected !== existing.metadata.resourceVersion) {
          return sendStatus(
            res,
            409,
            "Conflict",
            "the object has been modified; please apply your changes to the latest version",
          );
        }
        return sendJson(res, 200, this.update(collection, existing, object, part));
      }
      if (method === "PATCH") {
        let patched: StoredObject;
        if (contentType === "application/json-patch+json") {
          const result = applyJsonPatch(clone(existing), body as JsonPatchOp[]);
          if (!result.ok) return sendStatus(res, 422, "Invalid", result.error);
          patched = result.value;
        } else if (
          contentType === "application/merge-patch+json" ||
          contentType === "application/strategic-merge-patch+json"
        ) {
          patched = mergePatch(clone(existing), body) as StoredObject;
        } else {
          return sendStatus(res, 415, "UnsupportedMediaType", contentType);
        }
        return sendJson(res, 200, this.update(collection, existing, patched, part));
      }
      return sendStatus(res, 405, "MethodNotAllowed", method);
    } catch (error) {
      return sendStatus(res, 500, "InternalError", String(error));
    }
  }

  private create(collection: Collection, namespace: string, object: StoredObject): StoredObject {
    const stored: StoredObject = {
      ...object,
      apiVersion: apiVersionOf(collection),
      kind: KINDS[collection.plural] ?? object.kind,
      metadata: {
        ...object.metadata,
        namespace,
        uid: randomUUID(),
        resourceVersion: String(++this.revision),
        creationTimestamp: new Date().toISOString(),
        ...(WITH_STATUS.has(collectionId(collection)) ? { generation: 1 } : {}),
      },
    };
    if (WITH_STATUS.has(collectionId(collection))) delete stored.status;
    const store = this.objects.get(collectionId(collection)) ?? new Map();
    this.objects.set(collectionId(collection), store);
    store.set(`${namespace}/${stored.metadata.name}`, stored);
    this.emit("ADDED", collection, stored);
    return clone(stored);
  }

  /** Writes `next` over `existing`: the status subresource writes status only, the main resource all but status. */
  private update(
    collection: Collection,
    existing: StoredObject,
    next: StoredObject,
    part: "main" | "status" | "metadata",
  ): StoredObject {
    const withStatus = WITH_STATUS.has(collectionId(collection));
    const updated: StoredObject = clone(existing);
    if (part === "status") {
      updated.status = clone(next.status);
    } else {
      for (const [key, value] of Object.entries(next)) {
        if (key === "metadata" || key === "apiVersion" || key === "kind") continue;
        if (key === "status" && withStatus) continue;
        updated[key] = clone(value);
      }
      const { uid, creationTimestamp, generation, deletionTimestamp } = existing.metadata;
      updated.metadata = { ...clone(next.metadata), uid, creationTimestamp, generation, deletionTimestamp };
      if (withStatus && !isDeepStrictEqual(existing.spec, updated.spec)) {
        updated.metadata.generation = (existing.metadata.generation ?? 0) + 1;
      }
    }
    updated.metadata.resourceVersion = String(++this.revision);
    const store = this.objects.get(collectionId(collection))!;
    const key = `${existing.metadata.namespace}/${existing.metadata.name}`;
    if (updated.metadata.deletionTimestamp && (updated.metadata.finalizers ?? []).length === 0) {
      store.delete(key);
      this.emit("DELETED", collection, updated);
      this.collectGarbage(updated.metadata.uid);
      return clone(updated);
    }
    store.set(key, updated);
    this.emit("MODIFIED", collection, updated);
    return clone(updated);
  }

  private remove(collection: Collection, existing: StoredObject) {
    const store = this.objects.get(collectionId(collection))!;
    const key = `${existing.metadata.namespace}/${existing.metadata.name}`;
    if ((existing.metadata.finalizers ?? []).length > 0) {
      if (existing.metadata.deletionTimestamp) return;
      const updated = clone(existing);
      updated.metadata.deletionTimestamp = new Date().toISOString();
      updated.metadata.resourceVersion = String(++this.revision);
      store.set(key, updated);
      this.emit("MODIFIED", collection, updated);
      return;
    }
    store.delete(key);
    const deleted = clone(existing);
    deleted.metadata.resourceVersion = String(++this.revision);
    this.emit("DELETED", collection, deleted);
    this.collectGarbage(existing.metadata.uid);
  }

  /** The garbage collector: objects owned by a deleted object go too. */
  private collectGarbage(ownerUid: string | undefined) {
    if (!ownerUid) return;
    for (const [id, store] of this.objects) {
      const [group = "", plural = ""] = id.split("/");
      for (const object of [...store.values()]) {
        if (object.metadata.ownerReferences?.some((ref) => ref.uid === ownerUid)) {
          this.remove({ group, version: "v1", plural }, object);
        }
      }
    }
  }

  private emit(type: WatchEvent["type"], collection: Collection, object: StoredObject) {
    const event: WatchEvent = {
      type,
      collection: collectionId(collection),
      namespace: object.metadata.namespace ?? "",
      object: clone(object),
      resourceVersion: Number(object.metadata.resourceVersion),
    };
    this.log.push(event);
    for (const watcher of this.watchers) {
      if (watcher.collection === event.collection && (!watcher.namespace || watcher.namespace === event.namespace)) {
        watcher.res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
      }
    }
  }

  private watch(
    collection: Collection,
    namespace: string | undefined,
    since: number,
    bookmarks: boolean,
    res: ServerResponse,
  ) {
    // Without a resourceVersion a watch starts now; with one older than the compaction it is expired.
    if (since > 0 && since < this.compactedRevision) {
      const message = `too old resource version: ${since} (${this.compactedRevision})`;
      if (this.expiredWatchAnswer === "http") return sendStatus(res, 410, "Expired", message);
      const status = {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message,
        reason: "Expired",
        code: 410,
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    const id = collectionId(collection);
    for (const event of this.log) {
      if (event.collection !== id || event.resourceVersion <= since) continue;
      if (namespace && event.namespace !== namespace) continue;
      res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
    const watcher = { collection: id, namespace, bookmarks, res };
    this.watchers.add(watcher);
    res.on("close", () => this.watchers.delete(watcher));
  }
}

function parsePath(path: string) {
  const parts = path.split("/").filter(Boolean);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts[1]) {
    group = "";
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts[1] && parts[2]) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest[1] && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource] = rest;
  if (!plural) return undefined;
  return { collection: { group, version, plural }, namespace, name, subresource };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function sendStatus(res: ServerResponse, code: number, reason: string, message: string) {
  sendJson(res, code, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });
}

type JsonPatchOp = { op: "add" | "replace" | "test"; path: string; value: unknown } | { op: "remove"; path: string };

/** RFC 6902 (add, remove, replace, test) over RFC 6901 pointers. */
export function applyJsonPatch(
  document: StoredObject,
  operations: JsonPatchOp[],
): { ok: true; value: StoredObject } | { ok: false; error: string } {
  const root = { doc: clone(document) as unknown };
  for (const operation of operations) {
    const tokens = operation.path
      .split("/")
      .slice(1)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    let parent: unknown = root;
    let key: string = "doc";
    for (const token of tokens) {
      parent = (parent as Record<string, unknown>)[key];
      key = token;
      if (parent === undefined || parent === null || typeof parent !== "object") {
        return { ok: false, error: `path ${operation.path} does not exist` };
      }
    }
    const container = parent as Record<string, unknown>;
    const list = parent as unknown[];
    const isArray = Array.isArray(parent);
    const index = isArray ? (key === "-" ? list.length : Number(key)) : -1;
    switch (operation.op) {
      case "test": {
        const current = isArray ? list[index] : container[key];
        if (!isDeepStrictEqual(current, operation.value)) {
          return { ok: false, error: `test operation failed at ${operation.path}` };
        }
        break;
      }
      case "add":
        if (isArray) list.splice(index, 0, clone(operation.value));
        else container[key] = clone(operation.value);
        break;
      case "replace":
        if (isArray ? index >= list.length : !(key in container)) {
          return { ok: false, error: `path ${operation.path} does not exist` };
        }
        if (isArray) list[index] = clone(operation.value);
        else container[key] = clone(operation.value);
        break;
      case "remove":
        if (isArray ? index >= list.length : !(key in container)) {
          return { ok: false, error: `path ${operation.path} does not exist` };
        }
        if (isArray) list.splice(index, 1);
        else delete container[key];
        break;
    }
  }
  return { ok: true, value: root.doc as StoredObject };
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return clone(patch);
  const result: Record<string, unknown> =
    target && typeof target === "object" && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
