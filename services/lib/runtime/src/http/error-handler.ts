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

/**
 * Fixed texts for the framework's own 4xx errors: their messages name parts of the request (the
 * path, the content type, a fragment of a malformed body) and are never sent as they are.
 */
const FIXED_TEXT_BY_FASTIFY_CODE: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: "Body cannot be empty when content-type is set to 'application/json'",
  FST_ERR_CTP_INVALID_JSON_BODY: "Body is not valid JSON",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "Unsupported Media Type",
  FST_ERR_CTP_BODY_TOO_LARGE: "Request body is too large",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "Request body size did not match Content-Length",
  FST_ERR_BAD_URL: "The URL is not valid",
  FST_ERR_MAX_PARAM_LENGTH: "A path parameter is too long",
};

const FIXED_TEXT_BY_STATUS: Record<number, string> = {
  400: "The request is not valid",
  404: "Not found",
  405: "Method not allowed",
  413: "Request body is too large",
  414: "URI too long",
  415: "Unsupported Media Type",
};

/** The text of a framework 4xx error: fixed, whatever the request said. */
const fixedTextOf = (error: FastifyError, status: number) =>
  (error.code ? FIXED_TEXT_BY_FASTIFY_CODE[error.code] : undefined) ??
  FIXED_TEXT_BY_STATUS[status] ??
  "The request was refused";

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
    return new AppError(status, CODE_BY_STATUS[status] ?? "invalid_request", fixedTextOf(fastifyError, status), {
      cause: error,
    });
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

/** The one Fastify error handler and not-found handler (docs/http-api.md, "Error answers"). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      // A fixed text: the path is the client's input, never echoed.
      new AppError(404, "not_found", "Route not found"),
    ),
  );
}
