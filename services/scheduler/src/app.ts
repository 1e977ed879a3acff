import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import type { SchedulerConfig } from "./config.js";

/**
 * The scheduler's public HTTP port serves only `GET /health` (liveness; it probes neither the
 * database nor the ledger). Everything else is internal: NotaryService and /metrics on the internal port.
 */
export async function buildApp(context: ServiceContext<SchedulerConfig>): Promise<App> {
  return createServiceApp(context);
}
