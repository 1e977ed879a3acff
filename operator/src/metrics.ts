import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The operator's Prometheus metrics (served on /metrics of its HTTP port). */
export interface OperatorMetrics {
  registry: Registry;
  /** result: success, skipped, blocked, retry, exhausted, finalized, abandoned (leadership lost). */
  reconciles: Counter<"kind" | "result">;
  reconcileDuration: Histogram<"kind">;
  queueDepth: Gauge;
  leader: Gauge;
}

export function createOperatorMetrics(options: { queueDepth: () => number }): OperatorMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: "operator" });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    reconciles: new Counter({
      name: "attesto_operator_reconciles_total",
      help: "Reconciles of Tenant, Issuer and VerifierPolicy resources, by kind and result",
      labelNames: ["kind", "result"],
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: "attesto_operator_reconcile_duration_seconds",
      help: "Duration of one reconcile, by kind",
      labelNames: ["kind"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "attesto_operator_queue_depth",
      help: "Resources waiting to be reconciled",
      registers: [registry],
      collect() {
        this.set(options.queueDepth());
      },
    }),
    leader: new Gauge({
      name: "attesto_operator_leader",
      help: "1 when this replica holds the leader Lease",
      registers: [registry],
    }),
  };
}
