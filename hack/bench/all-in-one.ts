/**
 * `npm run bench -- --all-in-one`: the benchmarked services in ONE process, started by the
 * all-in-one launcher's startPlatform (the same code `npm start` runs), restricted to the services
 * named in BENCH_SERVICES. Stops cleanly on SIGTERM (so `--cpu-prof` writes its profile).
 */
import { loadLauncherConfig, platformServices, startPlatform } from "@attesto/all-in-one";
import pino from "pino";

const wanted = new Set((process.env.BENCH_SERVICES ?? "").split(",").filter(Boolean));
const config = loadLauncherConfig(process.env);
const logger = pino({ level: config.LOG_LEVEL });
const platform = await startPlatform({
  config,
  logger,
  services: platformServices.filter((module) => wanted.size === 0 || wanted.has(module.definition.name)),
});
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await platform.close().catch((error: unknown) => logger.error({ err: error }, "close failed"));
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
