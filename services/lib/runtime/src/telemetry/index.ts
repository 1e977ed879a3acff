// `@attesto/runtime/telemetry`: Prometheus metrics and OpenTelemetry tracing (the SDK loads only when tracing is on).
export { createServiceMetrics, type ServiceMetrics } from "./metrics.js";
export { startTracing, type Tracing } from "./tracing.js";
