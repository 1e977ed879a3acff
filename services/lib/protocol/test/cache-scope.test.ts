import { describe, expect, it } from "vitest";
import { type CacheInvalidations, cacheScopeOf, createCoherentCache } from "../src/cache/index.js";

/** Invalidations a test drives: `change(topic)` is a commit the next barrier has seen; barriers are counted. */
function driven() {
  const subscribers = new Map<string, Array<() => void>>();
  const pending: string[] = [];
  const state = { barriers: 0, coherent: true };
  const invalidations: CacheInvalidations = {
    async barrier() {
      state.barriers += 1;
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
});
