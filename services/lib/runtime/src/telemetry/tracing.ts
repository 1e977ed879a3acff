import { ClientRequest } from "node:http";
import { createRequire } from "node:module";
import type { Logger } from "pino";
import type { App } from "../http/create-app.js";
import { markTracingStarted } from "../rpc/trace-context.js";

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

const UNTRACED_PATHS = new Set(["/health", "/ready"]);

/**
 * A server span's name: method and route template (`POST /v1/token`, `GET /v1/offers/:offerId`),
 * never the raw URL (ids, tokens in paths); just the method when no route matched.
 */
export function serverSpanName(method: string, route: string | undefined): string {
  return route ? `${method} ${route}` : method;
}

/**
 * A hook or handler span's name: `handler POST /v1/token`, or the hook and its function's name
 * (`onRequest corsHook`) when that name is an identifier; Fastify otherwise names plugins after
 * their source text.
 */
export function lifecycleSpanName(
  hookName: string,
  method: string,
  route: string | undefined,
  handler: string | undefined,
): string {
  if (hookName === "handler") return `handler ${serverSpanName(method, route)}`;
  return handler && /^[\w$@./-]{1,64}$/.test(handler) ? `${hookName} ${handler}` : hookName;
}

/** An outbound HTTP span's name: method and host (`POST trust-registry:9085`), never the path. */
const clientSpanName = (method: string, host: string) => `${method} ${host}`;

/** The endpoint as logged: no user info, query or fragment (collector credentials stay out of logs). */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
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
  /** Told once, at start-up, that tracing is on and where spans go. */
  logger?: Pick<Logger, "info">;
}): Promise<Tracing | undefined> {
  if (!options.endpoint) return undefined;
  const tracesUrl = otlpTracesUrl(options.endpoint);
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
    traceExporter: new OTLPTraceExporter({ url: tracesUrl }),
    // Metrics are Prometheus (/metrics) and logs go to stdout: no OTLP metrics or logs exporters.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Incoming requests get their server span from Fastify (public port) or the Connect
      // interceptor (internal port, including HTTP/2): one server span per request.
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        requestHook: (span, request) => {
          if (request instanceof ClientRequest) span.updateName(clientSpanName(request.method, request.host));
        },
      }),
      new UndiciInstrumentation({
        requestHook: (span, request) => span.updateName(clientSpanName(request.method, new URL(request.origin).host)),
      }),
      // Background polling (job queue, cleanup) outside any request would be noise.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  markTracingStarted();
  patchLoadedPg();
  options.logger?.info(
    { otlp_endpoint: withoutCredentials(tracesUrl), service_name: options.serviceName },
    "tracing on: exporting spans over OTLP/HTTP",
  );
  return {
    async instrument(app, service) {
      const instrumentation = new FastifyOtelInstrumentation({
        // Probes every few seconds are not traced.
        ignorePaths: ({ url }) => UNTRACED_PATHS.has(url.split("?")[0]!),
        requestHook: (span, request) => {
          span.updateName(serverSpanName(request.method, request.routeOptions.url));
          span.setAttribute("attesto.service", service);
        },
        lifecycleHook: (span, { hookName, request, handler }) => {
          span.updateName(lifecycleSpanName(hookName, request.method, request.routeOptions.url, handler));
        },
      });
      await app.register(instrumentation.plugin());
    },
    shutdown: () => sdk.shutdown(),
  };
}
