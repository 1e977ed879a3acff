import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { createRequestRecorder } from "./request-recorder.js";

/** Prometheus metrics of one service: process defaults plus RED per route. */
export interface ServiceMetrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status_code">;
  httpDuration: Histogram<"method" | "route" | "status_code">;
  /**
   * One answered HTTP request, counted into `httpRequests` and `httpDuration` in batches, before
   * any read of them (request-recorder.ts): what createApp's onResponse hook calls.
   */
  recordRequest(method: string, route: string, statusCode: number, seconds: number): void;
}

/**
 * How often the event-loop delay histogram (`nodejs_eventloop_lag_p50_seconds`, `_p99_`, …) samples
 * the loop. prom-client's default, 10 ms, is a timer waking an idle process 100 times a second:
 * about 1 % of a core of the platform's idle CPU (strace: 200 epoll_pwait calls a second, nothing
 * else). Every stall of the loop still delays the next sample, so a stall longer than this interval
 * is always seen and shorter ones in proportion to their length; the scrape-time gauge
 * `nodejs_eventloop_lag_seconds` is unaffected (docs/telemetry.md).
 */
export const EVENT_LOOP_SAMPLE_INTERVAL_MS = 100;

/**
 * `processMetrics: false` leaves out the Node.js process metrics (`process_*`, `nodejs_*`): where
 * several services share one process (the all-in-one), only one of them reports the process.
 */
export function createServiceMetrics(service: string, options: { processMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (options.processMetrics ?? true)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_INTERVAL_MS });
  const labelNames = ["method", "route", "status_code"] as const;
  const httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by route and status",
    labelNames,
    registers: [registry],
    // Before every read: the requests recorded since the last one are counted in.
    collect: () => recorder.flush(),
  });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration in seconds, by route and status",
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
    collect: () => recorder.flush(),
  });
  const recorder = createRequestRecorder(httpRequests, httpDuration);
  return { registry, httpRequests, httpDuration, recordRequest: recorder.record };
}
