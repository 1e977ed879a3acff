import { Gauge, type Registry } from "prom-client";

/** What the metrics read from a pg pool (pg.Pool has these). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Database pool saturation, read at scrape time: `db_pool_connections{state}` (total open, idle,
 * and queries waiting for a connection) and `db_pool_max_connections` (DATABASE_POOL_MAX). Waiting
 * above zero for minutes means the pool is the bottleneck.
 */
export function registerDatabasePoolMetrics(registry: Registry, pool: PoolCounts, max: number): void {
  new Gauge({
    name: "db_pool_connections",
    help: "Connections of the service's PostgreSQL pool by state (total, idle), and queries waiting for one (waiting)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.set({ state: "total" }, pool.totalCount);
      this.set({ state: "idle" }, pool.idleCount);
      this.set({ state: "waiting" }, pool.waitingCount);
    },
  });
  new Gauge({
    name: "db_pool_max_connections",
    help: "Largest size of the service's PostgreSQL pool (DATABASE_POOL_MAX)",
    registers: [registry],
  }).set(max);
}
