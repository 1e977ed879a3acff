import { describe, expect, it } from "vitest";
import { type CacheInvalidations, cacheScopeOf, createCacheScope, createCoherentCache } from "../src/cache/index.js";

/** Invalidations a test drives: `change(topic)` is a commit the next barrier has seen; barriers are counted. */
function driven() {
  const subscribers = new Map<string, Array<() => void>>();
  const pending: string[] = [];
  const state = { barriers: 0, coherent: true, since: [] as Array<number | undefined> };
  const invalidations: CacheInvalidations = {
    async barrier(since) {
      state.barriers += 1;
      state.since.push(since);
      for (const topic of pending.splice(0)) for (const callback of subscribers.get(topic) ?? []) callback();
      return state.coherent;
    },
    subscribe(topic, onChange) {
      subscribers.set(topic, [...(subscribers.get(topic) ?? []), onChange]);
      return () => undefined;
    },
  };
  return { invalidations, state, change: (topic: string) => pending.push(topic) };
}

/** Two coherent caches on one listener (an offer's API key answer, tenant and issuer configuration). */
function caches() {
  const d = driven();
  const loads = { keys: 0, tenants: 0 };
  const values = { key: "key-v1", tenant: "tenant-v1" };
  const keys = createCoherentCache<string>({ invalidations: d.invalidations, topics: ["keys"], max: 10 });
  const tenants = createCoherentCache<string>({ invalidations: d.invalidations, topics: ["tenants"], max: 10 });
  const key = (scope?: ReturnType<typeof cacheScopeOf>) =>
    keys.get(
      "k",
      async () => {
        loads.keys += 1;
        return values.key;
      },
      scope,
    );
  const tenant = (scope?: ReturnType<typeof cacheScopeOf>) =>
    tenants.get(
      "t",
      async () => {
        loads.tenants += 1;
        return values.tenant;
      },
      scope,
    );
  return { ...d, loads, values, key, tenant };
}

describe("cache scope (one barrier per incoming request)", () => {
  it("every cached read of one request awaits the barrier its first read took; another request takes its own", async () => {
    const c = caches();
    await c.key();
    await c.tenant();
    expect(c.state.barriers).toBe(2); // without a scope: one barrier per read

    const request = {};
    await c.key(cacheScopeOf(request));
    await c.tenant(cacheScopeOf(request));
    await c.key(cacheScopeOf(request));
    expect(c.state.barriers).toBe(3);

    await c.tenant(cacheScopeOf({}));
    expect(c.state.barriers).toBe(4);
    expect(c.loads).toEqual({ keys: 1, tenants: 1 });
  });

  it("a change committed before the request began is seen by every read of the request", async () => {
    const c = caches();
    await c.key();
    await c.tenant();
    // Committed (a revoked key, a changed tenant) before the request is sent.
    c.values.key = "key-v2";
    c.values.tenant = "tenant-v2";
    c.change("keys");
    c.change("tenants");
    const request = {};
    expect(await c.key(cacheScopeOf(request))).toBe("key-v2");
    expect(await c.tenant(cacheScopeOf(request))).toBe("tenant-v2");
    expect(c.loads).toEqual({ keys: 2, tenants: 2 });
  });

  it("a request whose barrier cannot promise (listener down) reads every value from the database", async () => {
    const c = caches();
    await c.key();
    c.state.coherent = false;
    const request = {};
    await c.key(cacheScopeOf(request));
    await c.tenant(cacheScopeOf(request));
    await c.key(cacheScopeOf(request));
    expect(c.state.barriers).toBe(2);
    expect(c.loads).toEqual({ keys: 3, tenants: 1 });
  });

  it("asks for the changes committed before the scope was made (when the request began), not before its first read", async () => {
    const c = caches();
    const scope = createCacheScope(1234.5);
    await c.key(scope);
    await c.tenant(scope);
    expect(c.state.since).toEqual([1234.5]);
    const made = performance.now();
    await c.key(createCacheScope());
    expect(c.state.since[1]).toBeGreaterThanOrEqual(made);
  });

  it("prepare sends the scope's barrier at once; the request's reads await that one, for changes committed before the scope", async () => {
    const d = driven();
    let loads = 0;
    let value = "tenant-v1";
    const tenants = createCoherentCache<string>({ invalidations: d.invalidations, topics: ["tenants"], max: 10 });
    const read = (scope: ReturnType<typeof createCacheScope>) =>
      tenants.get(
        "t",
        async () => {
          loads += 1;
          return value;
        },
        scope,
      );
    expect(await read(createCacheScope())).toBe("tenant-v1");
    // Deactivated (changed) before the request began; the request's statement runs after prepare.
    value = "tenant-v2";
    d.change("tenants");
    const scope = createCacheScope(4321.5);
    tenants.prepare(scope);
    expect(d.state.barriers).toBe(2); // sent before any read of the request
    expect(await read(scope)).toBe("tenant-v2");
    expect(await read(scope)).toBe("tenant-v2");
    expect(d.state.barriers).toBe(2);
    expect(d.state.since[1]).toBe(4321.5);
    expect(loads).toBe(2);
  });

  it("a prepared barrier that fails is thrown by the request's read, and unhandled by nobody when no read comes", async () => {
    const failing: CacheInvalidations = {
      barrier: () => Promise.reject(new Error("listener gone")),
      subscribe: () => () => undefined,
    };
    const tenants = createCoherentCache<string>({ invalidations: failing, topics: ["tenants"], max: 10 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      tenants.prepare(createCacheScope()); // a request that failed before its tenant check
      const scope = createCacheScope();
      tenants.prepare(scope);
      await expect(tenants.get("t", async () => "v", scope)).rejects.toThrow("listener gone");
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
