/**
 * A small in-process cache of successful lookups for `ttlMs`. Concurrent misses for one key share a
 * single load; failures are not cached. Bounded: it empties itself when it reaches `maxEntries`.
 */
export function createTtlCache<V>(options: { ttlMs: number; maxEntries?: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1_000;
  const entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  return {
    get(key: string, load: () => Promise<V>): Promise<V> {
      const cached = entries.get(key);
      if (cached && cached.expiresAt > now()) return cached.value;
      if (entries.size >= maxEntries) entries.clear();
      const value = load();
      entries.set(key, { value, expiresAt: now() + options.ttlMs });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
  };
}
