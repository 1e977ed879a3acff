/**
 * `npm run bench -- --all-in-one`: the benchmarked services in ONE process, started by the
 * all-in-one launcher's startPlatform (the same code `npm start` runs), restricted to the services
 * named in BENCH_SERVICES. Once every service is healthy it prints the same ready report as
 * `npm start` (with an embedded database, its `database URL (psql): …` line, which topology.ts
 * reads for `--embedded`). Stops cleanly on SIGTERM (so `--cpu-prof` writes its profile).
 */
import { formatReadyReport, loadLauncherConfig, platformServices, startPlatform } from "@attesto/all-in-one";
import pino from "pino";

const wanted = new Set((process.env.BENCH_SERVICES ?? "").split(",").filter(Boolean));
const config = loadLauncherConfig(process.env);
const logger = pino({ level: config.LOG_LEVEL });
const platform = await startPlatform({
  config,
  logger,
  services: platformServices.filter((module) => wanted.size === 0 || wanted.has(module.definition.name)),
});
process.stdout.write(
  formatReadyReport({ services: platform.services, elapsedMs: performance.now(), database: platform.database }),
);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await platform.close().catch((error: unknown) => logger.error({ err: error }, "close failed"));
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
