import { LRUCache } from "lru-cache";

export interface BoundedCacheOptions {
  /** Entries kept; the least recently used goes first. */
  max: number;
  /** How long a value is kept after it is set (or read, with `refreshOnRead`); unset: until evicted. */
  ttlMs?: number;
  /** Whether a read starts the value's time to live again. */
  refreshOnRead?: boolean;
  /** Clock in milliseconds (tests move it); `performance.now()` by default. */
  now?: () => number;
}

export interface BoundedCache<V> {
  get(key: string): V | undefined;
  /** The value without refreshing or reordering it. */
  peek(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  /** Forgets every entry. */
  clear(): void;
  readonly size: number;
}

/**
 * The one cache of the platform: an `lru-cache` bounded in entries and, optionally, in time. Every
 * cache is made here or by `createLoadingCache` (built on this one); no other module imports
 * lru-cache (test/structure/composition.test.ts).
 */
export function createBoundedCache<V>(options: BoundedCacheOptions): BoundedCache<V> {
  const now = options.now;
  // lru-cache takes a start time of 0 for "no TTL": an injected clock counts from 1 at creation.
  const origin = now?.();
  const perf = now && origin !== undefined ? { now: () => now() - origin + 1 } : undefined;
  const entries = new LRUCache<string, NonNullable<V>>({
    max: options.max,
    ...(options.ttlMs !== undefined ? { ttl: options.ttlMs } : {}),
    ...(options.refreshOnRead ? { updateAgeOnGet: true } : {}),
    ...(perf ? { perf, ttlResolution: 0 } : {}),
  });
  return {
    get: (key) => entries.get(key),
    peek: (key) => entries.peek(key),
    set: (key, value) => {
      // A value is never undefined or null (callers cache results, not their absence).
      entries.set(key, value as NonNullable<V>);
    },
    delete: (key) => {
      entries.delete(key);
    },
    clear: () => {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
