import pg from "pg";
import type { Logger } from "pino";

/** How often the PGlite fallback is vacuumed and analysed (native PostgreSQL runs autovacuum instead). */
export const PGLITE_VACUUM_INTERVAL_MS = 10 * 60_000;

export interface PgliteUpkeep {
  /** Runs one VACUUM ANALYZE now (the timer's work; exposed for tests). */
  runOnce(): Promise<void>;
  /** Stops the timer and waits for a running VACUUM to end. */
  stop(): Promise<void>;
}

/**
 * Routine upkeep of the PGlite fallback: PGlite is a single backend without PostgreSQL's background
 * workers, so autovacuum never runs and rows made dead by updates (offers redeemed, sessions
 * completed, jobs done) pile up. A `VACUUM ANALYZE` every PGLITE_VACUUM_INTERVAL_MS reclaims them and
 * refreshes planner statistics; it goes through the wire server like any client, so it waits for
 * open transactions instead of landing inside one.
 */
export function startPgliteUpkeep(url: string, logger: Logger, intervalMs = PGLITE_VACUUM_INTERVAL_MS): PgliteUpkeep {
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query("VACUUM ANALYZE");
      } catch (error) {
        logger.warn({ err: error }, "routine VACUUM ANALYZE of the embedded database failed");
      } finally {
        await client.end().catch(() => {});
        running = undefined;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
