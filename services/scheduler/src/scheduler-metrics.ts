import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { NotarizationStore, SchedulerMetricsPort, WebhookDeliveryStore } from "./domain/ports.js";

/**
 * Domain metrics on the service registry (served at /metrics on the internal port): queue depth
 * by state (read from PostgreSQL at scrape time, so every replica reports the same totals),
 * enqueues, batch sizes, anchoring attempts, latency from enqueue to anchor, webhook deliveries.
 */
export function createSchedulerMetrics(
  registry: Registry,
  stores: { notarizations: NotarizationStore; deliveries: WebhookDeliveryStore },
  now: () => Date,
): SchedulerMetricsPort {
  const enqueued = new Counter({
    name: "notary_notarizations_enqueued_total",
    help: "Credentials enqueued for notarization",
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: "notary_batch_size",
    help: "Credentials per anchored Merkle batch",
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    registers: [registry],
  });
  const attempts = new Counter({
    name: "notary_anchor_attempts_total",
    help: "Batch anchoring attempts by result (failed: retry scheduled; dead: dead-lettered)",
    labelNames: ["result"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "notary_anchor_latency_seconds",
    help: "Time from enqueue to anchor per credential",
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by result (failed: retry scheduled; dead: dead-lettered)",
    labelNames: ["result"],
    registers: [registry],
  });
  new Gauge({
    name: "notary_notarizations",
    help: "Notarizations by state (pending includes queued and running)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const counts = await stores.notarizations.countByState().catch(() => undefined);
      if (!counts) return;
      this.reset();
      for (const state of ["pending", "failed", "anchored", "dead"]) this.set({ state }, counts[state] ?? 0);
    },
  });
  new Gauge({
    name: "notary_oldest_unanchored_seconds",
    help: "Age of the oldest notarization not anchored yet (pending, failed or dead; 0 when none)",
    registers: [registry],
    async collect() {
      const oldest = await stores.notarizations.oldestUnanchoredAt().catch(() => null);
      if (oldest === null) return;
      this.set(oldest ? Math.max(0, (now().getTime() - oldest.getTime()) / 1000) : 0);
    },
  });
  new Gauge({
    name: "webhook_deliveries",
    help: "Webhook deliveries by state",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const counts = await stores.deliveries.countByState().catch(() => undefined);
      if (!counts) return;
      this.reset();
      for (const state of ["pending", "running", "failed", "delivered", "dead"]) {
        this.set({ state }, counts[state] ?? 0);
      }
    },
  });
  return {
    enqueued: () => enqueued.inc(),
    batchCut: (size) => batchSize.observe(size),
    anchorAttempt: (result) => attempts.inc({ result }),
    anchored: (seconds) => latency.observe(seconds),
    delivery: (result) => deliveries.inc({ result }),
  };
}
