import type { FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { tooManyRequests } from "../errors/app-error.js";

/** Outcome of consuming one unit of a limit. */
export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the next unit is available (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * Shared counters (PostgreSQL in production, see @attesto/store) so a limit holds across replicas.
 * A sliding window: at most `max` allowed hits per `windowSeconds` for one key.
 */
export interface RateLimitCounter {
  consume(key: string, limit: { max: number; windowSeconds: number }): Promise<RateLimitDecision>;
  /** Takes back the latest hit of `key`, e.g. a login attempt that turned out to be the right password. */
  refund(key: string): Promise<void>;
}

export interface RateLimitRule {
  /** Namespaces the key, e.g. "apply" or "login". */
  name: string;
  max: number;
  windowSeconds: number;
  /** What is limited; the client IP by default. */
  key?: (request: FastifyRequest) => string | undefined;
  message?: string;
}

/** The counter key of `subject` under `rule` (for `RateLimitCounter.refund`). */
export const rateLimitKey = (rule: Pick<RateLimitRule, "name">, subject: string) => `${rule.name}:${subject}`;

/** A route preHandler that refuses with 429 (and Retry-After) once the rule's limit is reached. */
export function rateLimit(counter: RateLimitCounter, rule: RateLimitRule): preHandlerAsyncHookHandler {
  const keyOf = rule.key ?? ((request: FastifyRequest) => request.ip);
  return async (request, reply) => {
    const subject = keyOf(request);
    if (subject === undefined) return;
    const decision = await counter.consume(rateLimitKey(rule, subject), rule);
    reply.header("RateLimit-Limit", rule.max).header("RateLimit-Remaining", decision.remaining);
    if (!decision.allowed) {
      throw tooManyRequests(rule.message ?? "Too many requests, try again later", {
        headers: { "retry-after": String(decision.retryAfterSeconds) },
      });
    }
  };
}
