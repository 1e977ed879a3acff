import { createRequire } from "node:module";
import type { App } from "./http/create-app.js";

export interface Tracing {
  /** Registers server spans for a Fastify app (call before its routes). */
  instrument(app: App, service: string): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * The traces URL for an OTLP endpoint: a bare collector address (`http://collector:4318`, the
 * OpenTelemetry convention for OTEL_EXPORTER_OTLP_ENDPOINT) gets the standard `/v1/traces` path;
 * a URL with a path is used as it is.
 */
export function otlpTracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/v1/traces";
  return url.toString();
}

/**
 * Applies the pg instrumentation to the `pg` that @attesto/store already loaded (services import
 * it statically, before tracing starts): requiring it again through the instrumentation's hook
 * patches the shared module object in place, so every query after this makes spans.
 */
function patchLoadedPg(): void {
  const requireFromStore = createRequire(createRequire(import.meta.url).resolve("@attesto/store"));
  const pgEntry = requireFromStore.resolve("pg");
  requireFromStore("pg");
  createRequire(pgEntry)("pg-pool");
}

/**
 * OpenTelemetry tracing exported over OTLP/HTTP (JSON), with W3C trace-context propagation:
 * Fastify server spans, internal Connect calls (client and server spans, see rpc/trace-context.ts),
 * outbound HTTP (node:http and fetch) and PostgreSQL queries made inside a traced request.
 * Returns undefined when no endpoint is configured: tracing is off. Start it once per process,
 * before services are built. The SDK is loaded only when tracing is on: importing it costs seconds
 * of start-up.
 */
export async function startTracing(options: {
  serviceName: string;
  endpoint: string | undefined;
}): Promise<Tracing | undefined> {
  if (!options.endpoint) return undefined;
  const [
    { FastifyOtelInstrumentation },
    { OTLPTraceExporter },
    { HttpInstrumentation },
    { PgInstrumentation },
    { UndiciInstrumentation },
    { NodeSDK },
  ] = await Promise.all([
    import("@fastify/otel"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-pg"),
    import("@opentelemetry/instrumentation-undici"),
    import("@opentelemetry/sdk-node"),
  ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: otlpTracesUrl(options.endpoint) }),
    // Metrics are Prometheus (/metrics) and logs go to stdout: no OTLP metrics or logs exporters.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Incoming requests get their server span from Fastify (public port) or the Connect
      // interceptor (internal port, including HTTP/2): one server span per request.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new UndiciInstrumentation(),
      // Background polling (job queue, cleanup) outside any request would be noise.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  patchLoadedPg();
  return {
    async instrument(app, service) {
      const instrumentation = new FastifyOtelInstrumentation({
        ignorePaths: ({ url }) => url === "/health",
        requestHook: (span) => span.setAttribute("attesto.service", service),
      });
      await app.register(instrumentation.plugin());
    },
    shutdown: () => sdk.shutdown(),
  };
}
