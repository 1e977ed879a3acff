import { isSpanContextValid, trace } from "@opentelemetry/api";

/**
 * pino `mixin`: the active span's `trace_id` and `span_id` on every log line written inside a traced
 * request, RPC or job, so a log line leads to its trace and back. Without tracing (no SDK
 * registered) there is never an active span and lines stay as they were.
 */
export function traceContextMixin(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
