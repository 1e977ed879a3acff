/** Decrypted private keys are re-opened from their envelope at least this often by default. */
export const DEFAULT_KEY_CACHE_TTL_MS = 10 * 60_000;

export interface KeyCacheOptions {
  /** Entries kept; the least recently used goes first. 0 disables the cache. */
  capacity: number;
  /** How long an entry lives after it was stored (reads do not extend it). */
  ttlMs?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

/**
 * A small least-recently-used map for decrypted private keys (KeyObjects), so signing does not
 * unwrap an envelope every time. Bounded in size and in time: an entry expires `ttlMs` after it was
 * stored, so a key is re-read (and re-decrypted) from the database at least that often. Entries
 * are only ever dropped, never logged or persisted.
 */
export class KeyCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly capacity: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: KeyCacheOptions) {
    this.capacity = options.capacity;
    this.ttlMs = options.ttlMs ?? DEFAULT_KEY_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-insert so that iteration order stays least- to most-recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
