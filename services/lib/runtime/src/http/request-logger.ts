import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, Logger } from "pino";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

/**
 * A request's logger (`request.log`, `reply.log`) that costs nothing until a line is written:
 * Fastify makes a pino child (the request id bound, the route's level and serializers) for every
 * request, though at the levels production and the bench run (`warn`) most requests write no line.
 * This one keeps the parent, the bindings and the options, answers the level checks itself, and
 * makes the same child (`parent.child(bindings, options)`) the first time a line passes the
 * level, then hands it every call. So a line that is written is the child's line, byte for byte:
 * request id, redaction, serializers, the trace context mixin; a line below the level is dropped
 * before any of that work, as the child would have dropped it.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  #child: Logger | undefined;
  /** The route's level's value when it has one (Fastify passes `level` only for a route-level `logLevel`). */
  readonly #threshold: number | undefined;

  constructor(
    readonly parent: Logger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {
    this.#threshold = options.level === undefined ? undefined : parent.levels.values[options.level];
  }

  /** The child logger, made on first need. */
  get logger(): Logger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  /** Whether the child would write a line at `level` (pino's comparison: at or above the threshold). */
  isLevelEnabled(level: string): boolean {
    if (this.#child) return this.#child.isLevelEnabled(level);
    const value = this.parent.levels.values[level];
    return value !== undefined && value >= (this.#threshold ?? this.parent.levelVal);
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  #write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.logger;
    (logger[level] as (...a: unknown[]) => void).apply(logger, args);
  }

  fatal(...args: unknown[]): void {
    this.#write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.#write("error", args);
  }
  warn(...args: unknown[]): void {
    this.#write("warn", args);
  }
  info(...args: unknown[]): void {
    this.#write("info", args);
  }
  debug(...args: unknown[]): void {
    this.#write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.#write("trace", args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a LazyRequestLogger per request instead of a pino child. */
export function lazyRequestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger as Logger, bindings, options);
}
