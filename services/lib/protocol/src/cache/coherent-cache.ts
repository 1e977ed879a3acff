import { createLoadingCache } from "./loading-cache.js";

/**
 * Where a cache learns that what it holds changed in the database (`startCacheInvalidations` in
 * @attesto/store implements it with PostgreSQL LISTEN/NOTIFY).
 */
export interface CacheInvalidations {
  /**
   * Resolves `true` once every change committed before this call (before `since`, a
   * `performance.now()` of this process no later than the call, when given) has been passed to
   * the subscribers, `false` when that cannot be promised now (no listening connection, or a
   * database that does not deliver notifications): the caller then reads from the database.
   */
  barrier(since?: number): Promise<boolean>;
  /** Calls `onChange` after each committed change of `topic`; returns the unsubscribe. */
  subscribe(topic: string, onChange: () => void): () => void;
}

/** Invalidations that never promise anything: every coherent cache reads through (tests, tools). */
export const NO_INVALIDATIONS: CacheInvalidations = {
  barrier: async () => false,
  subscribe: () => () => undefined,
};

export interface CoherentCacheOptions {
  invalidations: CacheInvalidations;
  /** The topics whose changes empty this cache (the tables its values are read from). */
  topics: readonly string[];
  /** Entries kept; the least recently used goes first. */
  max: number;
}

export interface CoherentCache<V> {
  /**
   * The value for `key` as the database has it now: cached, or `load()`'s. With `scope` (the
   * incoming request's, `cacheScopeOf`), "now" is when the request began: the barrier is the one
   * the request's first cached read took.
   */
  get(key: string, load: () => Promise<V>, scope?: CacheScope): Promise<V>;
  /**
   * Sends `scope`'s barrier now, without waiting for it, so its round trip runs beside the
   * request's first statement instead of after it; a later `get` with `scope` awaits that same
   * barrier. Nothing else changes: the barrier is still for the changes committed before the scope
   * was made (`createCacheScope`), so a request that prepares sees what one that does not sees.
   */
  prepare(scope: CacheScope): void;
}

/**
 * One incoming request's barriers: its first cached read takes one, every later cached read of the
 * request (in any coherent cache on the same invalidations) awaits that same one instead of its own
 * round trip. The barrier is for the changes committed before the scope was made (when the request
 * began: `barrier(since)`, which a trip another request sent after that moment may already serve),
 * so the guarantee kept is "a change committed before the request began is seen" (a key revoked, a
 * tenant deactivated through any replica, before the request was sent): the per-read barrier
 * promised the same for each read's start, which no caller can tell apart within one request. Not
 * for a request that writes a cached table and reads it back: its own change may be notified after
 * the barrier it would trust.
 */
export interface CacheScope {
  barrier(invalidations: CacheInvalidations): Promise<boolean>;
}

/** A fresh scope, made when the request begins (`cacheScopeOf` keeps it with the request object). */
export function createCacheScope(since: number = performance.now()): CacheScope {
  let first: { invalidations: CacheInvalidations; barrier: Promise<boolean> } | undefined;
  let others: Map<CacheInvalidations, Promise<boolean>> | undefined;
  return {
    barrier(invalidations) {
      if (!first) {
        first = { invalidations, barrier: invalidations.barrier(since) };
        return first.barrier;
      }
      if (first.invalidations === invalidations) return first.barrier;
      others ??= new Map();
      let barrier = others.get(invalidations);
      if (!barrier) {
        barrier = invalidations.barrier(since);
        others.set(invalidations, barrier);
      }
      return barrier;
    },
  };
}

const scopes = new WeakMap<object, CacheScope>();

/** The cache scope of an incoming request (an HTTP request object, an RPC's context): made on first use. */
export function cacheScopeOf(request: object): CacheScope {
  let scope = scopes.get(request);
  if (!scope) {
    scope = createCacheScope();
    scopes.set(request, scope);
  }
  return scope;
}

/**
 * A loading cache that is never behind the database: every read first waits for the invalidation
 * barrier, so a change committed before the read began (a revoked API key, a deactivated tenant, a
 * new issuer configuration, on any replica) has emptied the cache before it is consulted. Without
 * that promise (listener down, a database without notifications) it reads through. Guarantee kept:
 * no time-to-live window; what the database refuses, the cache refuses on the very next read.
 */
export function createCoherentCache<V>(options: CoherentCacheOptions): CoherentCache<V> {
  // Time never expires an entry: only a change does. (`ttlMs` is the loading cache's upper bound.)
  const entries = createLoadingCache<V>({ max: options.max, ttlMs: Number.MAX_SAFE_INTEGER });
  for (const topic of options.topics) options.invalidations.subscribe(topic, () => entries.clear());
  return {
    async get(key, load, scope) {
      const barrier = scope ? scope.barrier(options.invalidations) : options.invalidations.barrier();
      if (!(await barrier)) return load();
      return entries.get(key, load);
    },
    prepare(scope) {
      // Awaited (and its failure thrown) by the request's `get`; a request that fails before it never asks.
      scope.barrier(options.invalidations).catch(() => undefined);
    },
  };
}
