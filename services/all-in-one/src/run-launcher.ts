import { performance } from "node:perf_hooks";
import { ConfigError } from "@attesto/runtime/config";
import { createLogger } from "@attesto/runtime/logging";
import { closeOnSignals } from "@attesto/runtime/service";
import { startTracing } from "@attesto/runtime/telemetry";
import { type LauncherConfig, loadLauncherConfig } from "./config.js";
import { type Platform, startPlatform } from "./platform.js";
import { formatReadyReport } from "./print-ready.js";
import { describeStartupError } from "./startup-error.js";

/** Idle memory is sampled once start-up garbage has had time to settle. */
const IDLE_RSS_DELAY_MS = 5_000;

function fail(error: unknown): never {
  process.stderr.write(`\nAttesto failed to start: ${describeStartupError(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}

/**
 * The `npm start` process: configure, start every service, print where they are, then drain on
 * SIGTERM/SIGINT. `interrupted` fires on a signal during start-up, which stops it cleanly
 * (exit 0); `releaseSignals` removes the start-up signal handlers once the drain handlers take over.
 */
export async function runLauncher(options: { interrupted: AbortSignal; releaseSignals: () => void }): Promise<void> {
  const { interrupted } = options;
  let config: LauncherConfig;
  try {
    config = loadLauncherConfig(process.env);
  } catch (error) {
    fail(error);
  }
  const logger = createLogger("all-in-one", config.LOG_LEVEL);
  const tracing = await startTracing({ serviceName: "attesto", endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, logger });

  let platform: Platform;
  try {
    if (interrupted.aborted) throw new Error("interrupted");
    platform = await startPlatform({ config, logger, tracing, signal: interrupted });
  } catch (error) {
    await tracing?.shutdown().catch(() => {});
    if (interrupted.aborted) {
      logger.info("start-up interrupted; stopped");
      process.exit(0);
    }
    fail(error);
  }
  const shutdown = async () => {
    await platform.close();
    await tracing?.shutdown();
  };
  options.releaseSignals();
  if (interrupted.aborted) {
    await shutdown();
    process.exit(0);
  }
  closeOnSignals(shutdown, { graceMs: config.SHUTDOWN_GRACE_MS, name: "all-in-one" });

  process.stdout.write(
    formatReadyReport({
      services: platform.services,
      elapsedMs: performance.now(),
      database: platform.database,
      outboundAllowance: platform.outboundAllowance,
      demoWalletProviderTrusted: platform.demoWalletProviderTrusted,
    }),
  );
  setTimeout(() => {
    const rss = process.memoryUsage.rss();
    logger.info({ rss_bytes: rss }, `idle RSS ${Math.round(rss / 1024 / 1024)} MiB`);
  }, IDLE_RSS_DELAY_MS).unref();
}
