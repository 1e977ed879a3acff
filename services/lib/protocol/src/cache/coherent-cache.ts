import { createLoadingCache } from "./loading-cache.js";

/**
 * Where a cache learns that what it holds changed in the database (`startCacheInvalidations` in
 * @attesto/store implements it with PostgreSQL LISTEN/NOTIFY).
 */
export interface CacheInvalidations {
  /**
   * Resolves `true` once every change committed before this call has been passed to the
   * subscribers, `false` when that cannot be promised now (no listening connection, or a database
   * that does not deliver notifications): the caller then reads from the database.
   */
  barrier(): Promise<boolean>;
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
  /** The value for `key` as the database has it now: cached, or `load()`'s. */
  get(key: string, load: () => Promise<V>): Promise<V>;
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
    async get(key, load) {
      if (!(await options.invalidations.barrier())) return load();
      return entries.get(key, load);
    },
  };
}
