import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";

/**
 * W3C trace context across internal Connect calls, on every transport (HTTP/1.1, h2c, in-memory):
 * the HTTP instrumentation sees neither HTTP/2 streams nor every client, so the RPC layer carries
 * `traceparent` itself. Without a registered SDK (tracing off) the API is a no-op.
 */

const tracer = () => trace.getTracer("@attesto/runtime");

let tracingStarted = false;

/**
 * Called by startTracing once the SDK runs in this process. Until then the OpenTelemetry API is a
 * no-op (no tracer, no propagator), so the interceptors below pass calls straight through instead
 * of making non-recording spans and wrapping every call in another promise.
 */
export function markTracingStarted(): void {
  tracingStarted = true;
}

const setter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) };
const getter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

function rpcAttributes(service: string, method: string): Attributes {
  return { "rpc.system": "connect_rpc", "rpc.service": service, "rpc.method": method };
}

async function endAfter<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = ConnectError.from(error).code;
    span.setAttribute("rpc.connect_rpc.error_code", Code[code] ?? String(code));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** A CLIENT span per call (all retries included) whose context travels in `traceparent`. */
export function traceClientInterceptor(audience: string): Interceptor {
  return (next) => (req) => {
    if (!tracingStarted) return next(req);
    const attributes = { ...rpcAttributes(req.service.typeName, req.method.name), "peer.service": audience };
    return tracer().startActiveSpan(
      `${req.service.typeName}/${req.method.name}`,
      { kind: SpanKind.CLIENT, attributes },
      (span) =>
        endAfter(span, () => {
          propagation.inject(context.active(), req.header, setter);
          return next(req);
        }),
    );
  };
}

/** A SERVER span per call, child of the caller's span named by the incoming `traceparent`. */
export function traceServerInterceptor(service: string): Interceptor {
  return (next) => (req) => {
    if (!tracingStarted) return next(req);
    const parent = propagation.extract(ROOT_CONTEXT, req.header, getter);
    const attributes = { ...rpcAttributes(req.service.typeName, req.method.name), "attesto.service": service };
    return tracer().startActiveSpan(
      `${req.service.typeName}/${req.method.name}`,
      { kind: SpanKind.SERVER, attributes },
      parent,
      (span) => endAfter(span, () => next(req)),
    );
  };
}
