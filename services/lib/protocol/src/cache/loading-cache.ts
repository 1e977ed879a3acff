import { createBoundedCache } from "./bounded-cache.js";

export interface LoadingCacheOptions {
  /** Entries kept; the least recently used goes first. 0 disables the cache (every get loads). */
  max: number;
  /**
   * How long a loaded value is reused, counted from the start of its load (reads do not extend it).
   * 0 disables the cache.
   */
  ttlMs: number;
  /** Clock in milliseconds (tests move it); `performance.now()` by default. */
  now?: () => number;
}

export interface LoadingCache<V> {
  /** The cached value for `key`, or `load()`'s; concurrent misses for one key share one load. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** The cached value (or its load in flight) without loading, refreshing or reordering. */
  peek(key: string): Promise<V> | undefined;
  delete(key: string): void;
  /** Forgets every entry (loads in flight finish for their callers but are not kept). */
  clear(): void;
  readonly size: number;
}

/**
 * The one cache of looked-up values: a bounded cache (`createBoundedCache`) bounded in entries and in time. A value may be
 * `undefined` (a remembered "not found"); a failed load is not cached, so the next call tries again.
 */
export function createLoadingCache<V>(options: LoadingCacheOptions): LoadingCache<V> {
  if (options.max <= 0 || options.ttlMs <= 0) return uncached();
  const entries = createBoundedCache<{ value: Promise<V> }>({
    max: options.max,
    ttlMs: options.ttlMs,
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    get(key, load) {
      const cached = entries.get(key);
      if (cached) return cached.value;
      let value: Promise<V>;
      try {
        value = load();
      } catch (error) {
        value = Promise.reject(error);
      }
      const entry = { value };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.peek(key) === entry) entries.delete(key);
      });
      return entry.value;
    },
    peek(key) {
      return entries.peek(key)?.value;
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}

function uncached<V>(): LoadingCache<V> {
  return {
    get: async (_key, load) => load(),
    peek: () => undefined,
    delete: () => undefined,
    clear: () => undefined,
    size: 0,
  };
}
