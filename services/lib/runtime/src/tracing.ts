import type { App } from "./http/create-app.js";

export interface Tracing {
  /** Registers server spans for a Fastify app (call before its routes). */
  instrument(app: App, service: string): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry tracing exported over OTLP/HTTP, with W3C trace-context propagation across HTTP
 * (and so across Connect calls). Returns undefined when no endpoint is configured: tracing is off.
 * Start it once per process, before services are built. The SDK is loaded only when tracing is
 * on: importing it costs seconds of start-up.
 */
export async function startTracing(options: {
  serviceName: string;
  endpoint: string | undefined;
}): Promise<Tracing | undefined> {
  if (!options.endpoint) return undefined;
  const [{ FastifyOtelInstrumentation }, { OTLPTraceExporter }, { HttpInstrumentation }, { NodeSDK }] =
    await Promise.all([
      import("@fastify/otel"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/sdk-node"),
    ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: options.endpoint }),
    instrumentations: [new HttpInstrumentation()],
  });
  sdk.start();
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
