import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, type ErrorShape, invalidFields, isAppError } from "../errors/app-error.js";
import { fieldErrorsOf } from "./validation.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Wire shape of this route's errors; `api` unless set. */
    errorShape?: ErrorShape;
  }
}

const CODE_BY_STATUS: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  408: "request_timeout",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  414: "uri_too_long",
  415: "unsupported_media_type",
  429: "rate_limited",
  503: "unavailable",
};

/** Turns a Fastify schema validation failure into a 400 that lists every failing field. */
export function validationError(error: FastifyError): AppError {
  const issues = error.validation ?? [];
  if (issues.length === 0) return new AppError(400, "invalid_request", error.message, { cause: error });
  return invalidFields(fieldErrorsOf(issues, error.validationContext), { cause: error });
}

function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return validationError(fastifyError);
  const status = fastifyError?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new AppError(status, CODE_BY_STATUS[status] ?? "invalid_request", fastifyError.message, { cause: error });
  }
  return new AppError(500, "server_error", "Internal server error", { cause: error });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const appError = toAppError(error);
  const shape = appError.shape ?? request.routeOptions?.config?.errorShape ?? "api";
  if (appError.status >= 500) {
    request.log.error({ err: appError.cause ?? appError }, "request failed");
  } else {
    request.log.info({ status: appError.status, code: appError.code }, appError.message);
  }
  const message = appError.expose ? appError.message : "Internal server error";
  const body: Record<string, unknown> =
    shape === "oauth" ? { error: appError.code, error_description: message } : { error: appError.code, message };
  if (appError.fieldErrors && appError.expose) body.errors = appError.fieldErrors;
  return reply.code(appError.status).headers(appError.headers).send(body);
}

/** The one Fastify error handler and not-found handler (root README, "Architecture": errors). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError(404, "not_found", `Route ${request.method} ${request.url.split("?")[0]} not found`),
    ),
  );
}
