/**
 * The one error model. Every failure a client may see is an AppError: a status, a stable machine
 * code and a message that is safe to show. Anything else is an internal error and is answered as
 * 500 `server_error` without details (the log keeps the cause).
 *
 * Two wire shapes exist (docs/http-api.md, "Error answers"):
 * - `api`   -> `{ error, message }`             (admin and REST endpoints)
 * - `oauth` -> `{ error, error_description }`   (/v1/par, /v1/token, /credential, presentation)
 * A validation failure adds `errors`: every failing field with what is wrong with it.
 */
export type ErrorShape = "api" | "oauth";

/** One failing field of a request: `{field: "credential.config_id", message: "is required"}`. */
export interface FieldError {
  /** Dotted path of the field (`selected_credentials.0.query_id`), or `body`/`query` for the whole part. */
  field: string;
  /** What is wrong, without the field name: `is required`, `must be a string`, ... */
  message: string;
}

/**
 * One entry per field, in the order the fields first failed: a field breaking several rules gets
 * them joined with "and" (`password must be at least 8 characters and must contain a digit`).
 */
export function oneEntryPerField(errors: readonly FieldError[]): FieldError[] {
  const byField = new Map<string, string[]>();
  for (const { field, message } of errors) {
    const messages = byField.get(field) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byField.set(field, messages);
  }
  return [...byField].map(([field, messages]) => ({ field, message: messages.join(" and ") }));
}

/**
 * The one wording of a list of field errors, naming the first failing field first:
 * `a is required; b must be a string` (one entry per field).
 */
export const describeFieldErrors = (errors: readonly FieldError[]): string =>
  oneEntryPerField(errors)
    .map(({ field, message }) => `${field} ${message}`)
    .join("; ");

export interface AppErrorOptions {
  cause?: unknown;
  headers?: Record<string, string>;
  /** Force a wire shape regardless of the route's default (e.g. OAuth errors). */
  shape?: ErrorShape;
  /** Every failing field, for a validation failure: sent as `errors`. */
  fieldErrors?: readonly FieldError[];
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly shape: ErrorShape | undefined;
  readonly fieldErrors: readonly FieldError[] | undefined;

  constructor(status: number, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = options.headers ?? {};
    this.shape = options.shape;
    this.fieldErrors = options.fieldErrors && oneEntryPerField(options.fieldErrors);
  }

  /** Whether the message may be shown to the client (client errors, and "unavailable" which names the dependency). */
  get expose(): boolean {
    return this.status < 500 || this.status === 503;
  }
}

/** An RFC 6749-style error: always serialised as `{error, error_description}`. */
export class OAuthError extends AppError {
  constructor(status: number, code: string, description: string, options: Omit<AppErrorOptions, "shape"> = {}) {
    super(status, code, description, { ...options, shape: "oauth" });
  }
}

type Factory = (message: string, options?: AppErrorOptions) => AppError;
const factory =
  (status: number, code: string): Factory =>
  (message, options) =>
    new AppError(status, code, message, options);

export const badRequest = factory(400, "invalid_request");

/** 400 `invalid_request` listing every failing field (message: `describeFieldErrors`). */
export const invalidFields = (errors: readonly FieldError[], options: Omit<AppErrorOptions, "fieldErrors"> = {}) =>
  new AppError(400, "invalid_request", describeFieldErrors(errors), { ...options, fieldErrors: errors });
export const unauthorized = factory(401, "unauthorized");
export const forbidden = factory(403, "forbidden");
export const notFound = factory(404, "not_found");
export const conflict = factory(409, "conflict");
export const gone = factory(410, "gone");
export const tooManyRequests = factory(429, "rate_limited");
export const unavailable = factory(503, "unavailable");
export const internalError = factory(500, "server_error");

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;
