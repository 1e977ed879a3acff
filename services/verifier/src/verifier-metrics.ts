import type { ServiceContext } from "@attesto/runtime/service";
import { Counter } from "prom-client";
import type { VerifierConfig } from "./config.js";
import type { VerificationRecorder } from "./domain/ports.js";

const VERIFIED_METRIC = "attesto_presentations_verified_total";

/** Presentations verified, by result and first failed check (bounded: check names). */
export function createVerificationRecorder(context: ServiceContext<VerifierConfig>): VerificationRecorder {
  const registry = context.metrics.registry;
  const counter =
    (registry.getSingleMetric(VERIFIED_METRIC) as Counter<"result" | "failed_check"> | undefined) ??
    new Counter({
      name: VERIFIED_METRIC,
      help: "Presentations verified, by result and the first failed check",
      labelNames: ["result", "failed_check"] as const,
      registers: [registry],
    });
  return { record: (result, failedCheck) => counter.inc({ result, failed_check: failedCheck ?? "" }) };
}
