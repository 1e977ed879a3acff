import type { Counter, Histogram } from "prom-client";

type RedLabels = "method" | "route" | "status_code";

/** Requests recorded before they are counted in without a read (bounds the memory between scrapes). */
export const MAX_PENDING_REQUESTS = 4096;

/**
 * The RED metrics of answered HTTP requests, recorded per request and counted into prom-client's
 * `requests` and `duration` in batches: prom-client's `inc` and `observe` per request (a label
 * object validated, hashed and looked up, twice) were ~1 % of the all-in-one's main thread per
 * issuance. A request now costs a Map lookup and an array push; `flush` counts the pending ones in,
 * in the order they came, so the metrics end up exactly as if each had been counted at once.
 * The metrics call `flush` from their `collect` (prom-client runs it before every read: a scrape,
 * `registry.metrics()`, `get()`), so every read sees every request recorded before it; reaching
 * MAX_PENDING_REQUESTS flushes too.
 */
export function createRequestRecorder(requests: Counter<RedLabels>, duration: Histogram<RedLabels>) {
  const pending = new Map<string, { labels: Record<RedLabels, string>; seconds: number[] }>();
  let count = 0;
  const flush = () => {
    if (count === 0) return;
    count = 0;
    for (const entry of pending.values()) {
      if (entry.seconds.length === 0) continue;
      requests.inc(entry.labels, entry.seconds.length);
      for (const seconds of entry.seconds) duration.observe(entry.labels, seconds);
      entry.seconds.length = 0;
    }
  };
  return {
    flush,
    record(method: string, route: string, statusCode: number, seconds: number): void {
      const key = `${statusCode} ${method} ${route}`;
      let entry = pending.get(key);
      if (!entry) {
        entry = { labels: { method, route, status_code: String(statusCode) }, seconds: [] };
        pending.set(key, entry);
      }
      entry.seconds.push(seconds);
      if (++count >= MAX_PENDING_REQUESTS) flush();
    },
  };
}
