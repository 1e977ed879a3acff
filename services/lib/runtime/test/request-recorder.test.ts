import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { createServiceMetrics } from "../src/telemetry/metrics.js";
import { MAX_PENDING_REQUESTS } from "../src/telemetry/request-recorder.js";

/** The RED metrics counted per request, as createApp's hook did before the recorder. */
function countedAtOnce() {
  const registry = new Registry();
  registry.setDefaultLabels({ service: "s" });
  const labelNames = ["method", "route", "status_code"] as const;
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by route and status",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration in seconds, by route and status",
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    record(method: string, route: string, statusCode: number, seconds: number) {
      const labels = { method, route, status_code: String(statusCode) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

const requests: Array<[string, string, number, number]> = [
  ["POST", "/v1/offers", 201, 0.0031],
  ["GET", "/v1/offers/:offerId", 200, 0.0007],
  ["POST", "/v1/token", 200, 0.012],
  ["POST", "/v1/offers", 201, 0.0042],
  ["POST", "/v1/offers", 400, 0.0009],
  ["GET", "unmatched", 404, 0.0002],
  ["POST", "/credential", 200, 0.3],
  ["POST", "/credential", 200, 7],
];

describe("the RED metrics' request recorder", () => {
  it("exposes exactly what counting each request at once exposed, at every read", async () => {
    const metrics = createServiceMetrics("s", { processMetrics: false });
    const reference = countedAtOnce();
    for (const round of [requests, requests.slice(2), []]) {
      for (const request of round) {
        metrics.recordRequest(...request);
        reference.record(...request);
      }
      expect(await metrics.registry.metrics()).toBe(await reference.registry.metrics());
      expect(await metrics.httpDuration.get()).toEqual(
        await (reference.registry.getSingleMetric("http_request_duration_seconds") as Histogram).get(),
      );
    }
  });

  it("counts pending requests in without a read once MAX_PENDING_REQUESTS are pending", async () => {
    const metrics = createServiceMetrics("s", { processMetrics: false });
    const inc = vi.spyOn(metrics.httpRequests, "inc");
    for (let i = 0; i < MAX_PENDING_REQUESTS - 1; i++) metrics.recordRequest("GET", "/x", 200, 0.001);
    expect(inc).not.toHaveBeenCalled();
    metrics.recordRequest("GET", "/y", 200, 0.001);
    expect(inc).toHaveBeenCalledTimes(2);
    metrics.recordRequest("GET", "/x", 200, 0.001);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      `http_requests_total{method="GET",route="/x",status_code="200",service="s"} ${MAX_PENDING_REQUESTS}`,
    );
    expect(text).toContain(`http_requests_total{method="GET",route="/y",status_code="200",service="s"} 1`);
  });
});
