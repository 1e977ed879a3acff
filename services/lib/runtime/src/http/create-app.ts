import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import Fastify from "fastify";
import { serializerCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { BaseConfig } from "../config.js";
import { invalidFields } from "../errors/app-error.js";
import { findUnstorableText as unstorableAt } from "../errors/unstorable-text.js";
import { logDestination } from "../log-destination.js";
import { loggerOptions } from "../logger.js";
import type { ServiceMetrics } from "../telemetry/metrics.js";
import type { App } from "./app.js";
import { registerDocsPage } from "./docs-page.js";
import { installErrorHandling, sendError } from "./error-handler.js";
import { OPENAPI_PATH, registerOpenApi } from "./openapi.js";
import { lazyRequestLoggerFactory } from "./request-logger.js";
import { installSecurityHeaders } from "./security-headers.js";
import { DeferredIncomingRequestLog, logIncomingRequests } from "./traced-request-log.js";
import { validatorCompiler } from "./validation.js";

export type { App } from "./app.js";

export interface CreateAppOptions {
  service: string;
  version: string;
  config: Pick<BaseConfig, "LOG_LEVEL" | "BODY_LIMIT_BYTES" | "REQUEST_TIMEOUT_MS" | "CORS_ORIGINS" | "TRUST_PROXY">;
  metrics?: ServiceMetrics;
  /** The public base URL (the OpenAPI document's `servers`). */
  publicUrl?: string;
  /** Extra Fastify plugins registered before the routes (e.g. the OpenTelemetry plugin). */
  plugins?: Array<(app: App) => Promise<void> | void>;
}

/** Requests Node's HTTP parser refuses never reach Fastify: answer them in the documented shape. */
function answerClientError(error: Error, socket: import("node:net").Socket): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ECONNRESET" || socket.destroyed) return;
  const [status, body] =
    code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, { error: "request_timeout", message: "Request timed out" }]
      : code === "HPE_HEADER_OVERFLOW"
        ? [431, { error: "request_header_fields_too_large", message: "Request header fields are too large" }]
        : [400, { error: "invalid_request", message: "Malformed HTTP request" }];
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/** What an X-Request-Id may be to be used (and echoed, and logged): anything else gets a fresh id. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it matches REQUEST_ID_PATTERN, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}

export const EXPOSED_HEADERS = ["DPoP-Nonce", "WWW-Authenticate", "X-Request-Id", "Retry-After"];

/** The request headers a cross-origin caller may send (a preflight's Access-Control-Allow-Headers). */
const ALLOWED_HEADERS = [
  "Content-Type",
  "Authorization",
  "DPoP",
  "X-API-Key",
  "OAuth-Client-Attestation",
  "OAuth-Client-Attestation-PoP",
  "X-Request-Id",
];

/**
 * The Fastify app every service builds on: `GET /health`, request ids, redacted JSON logs, the one
 * error handler, zod schemas, form bodies, body limit, CORS, security headers, RED metrics, the
 * OpenAPI 3.1 document of every route at `GET /openapi.json` and the page rendering it at `GET /docs`.
 */
export async function createApp(options: CreateAppOptions): Promise<App> {
  const { service, version, config, metrics } = options;
  const app = Fastify({
    logger: { ...loggerOptions(service, config.LOG_LEVEL), stream: logDestination() },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.REQUEST_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
    // The id comes from X-Request-Id only when it is a plain token (requestIdOf); Fastify would take it verbatim.
    requestIdHeader: false,
    logController: new DeferredIncomingRequestLog({ requestIdLogLabel: "request_id" }),
    // No pino child per request unless the request writes a line (request-logger.ts).
    childLoggerFactory: lazyRequestLoggerFactory,
    genReqId: requestIdOf,
    return503OnClosing: true,
    // Bad URLs and over-long path parameters go through the one error handler too.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
    forceCloseConnections: "idle",
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  // The per-request hooks take `done` rather than being async: no promise and microtask per hook and request.
  app.addHook("preValidation", (request, _reply, done) => {
    // Query strings only where the route reads them (a schema): metadata answers 200 whatever the query.
    const readsQuery = request.routeOptions.schema?.querystring !== undefined;
    const field =
      unstorableAt(request.params, "params") ??
      (readsQuery ? unstorableAt(request.query, "query") : undefined) ??
      unstorableAt(request.body, "body");
    done(
      field ? invalidFields([{ field, message: "must not contain NUL characters or unpaired surrogates" }]) : undefined,
    );
  });

  installSecurityHeaders(app);
  await app.register(cors, {
    origin: config.CORS_ORIGINS === "*" ? "*" : config.CORS_ORIGINS.split(",").map((o) => o.trim()),
    // Joined once here: @fastify/cors joins an array on every request (the exposed headers) and preflight.
    exposedHeaders: EXPOSED_HEADERS.join(", "),
    allowedHeaders: ALLOWED_HEADERS.join(", "),
  });
  await app.register(formbody);
  await registerOpenApi(app, { service, version, publicUrl: options.publicUrl });
  registerDocsPage(app, { title: `Attesto ${service} API`, documentPath: OPENAPI_PATH, publicUrl: options.publicUrl });

  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  if (metrics) {
    app.addHook("onResponse", (request, reply, done) => {
      metrics.recordRequest(
        request.method,
        request.routeOptions.url ?? "unmatched",
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
  for (const plugin of options.plugins ?? []) await plugin(app);
  // After the tracing plugin's hook: the line is written inside the request's span.
  logIncomingRequests(app);

  app.get(
    "/health",
    {
      logLevel: "warn",
      schema: {
        summary: "Liveness: the process answers",
        response: { 200: z.object({ status: z.literal("ok"), service: z.string(), version: z.string() }) },
      },
    },
    async () => ({ status: "ok" as const, service, version }),
  );
  return app;
}
