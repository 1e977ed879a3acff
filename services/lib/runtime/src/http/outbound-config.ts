import { z } from "zod";
import { booleanFlag } from "../config.js";
import { createLogger } from "../logger.js";
import {
  createOutboundGuard,
  type OutboundGuard,
  type OutboundGuardOptions,
  parseAllowedHost,
} from "./outbound-request-guard.js";

/** Comma-separated `host:port` entries, each checked (an explicit port is required). */
const allowHostsSchema = z
  .string()
  .default("")
  .transform((text, context) => {
    const hosts: string[] = [];
    for (const entry of text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean)) {
      try {
        hosts.push(parseAllowedHost(entry));
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message });
      }
    }
    return hosts;
  });

/**
 * Variables of the outbound request guard, for every service that fetches URLs others supply
 * (holder, verifier, scheduler). Documented in docs/configuration.md.
 */
export function outboundConfigShape() {
  return {
    /** `host:port` entries reachable although internal (and over http); empty: nothing internal. */
    OUTBOUND_ALLOW_HOSTS: allowHostsSchema,
    /** Plain http:// to public hosts; https only otherwise. */
    OUTBOUND_ALLOW_HTTP: booleanFlag.default(false),
    /** Deadline of one outbound request (DNS, connect, TLS, redirects, body). */
    OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** Largest response body read from a third party. */
    OUTBOUND_MAX_RESPONSE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024),
  } as const;
}

/** The guard's variables; a service with its own deadline (the scheduler's webhooks) reads only the first two. */
export interface OutboundConfig {
  OUTBOUND_ALLOW_HOSTS: string[];
  OUTBOUND_ALLOW_HTTP: boolean;
  OUTBOUND_TIMEOUT_MS?: number;
  OUTBOUND_MAX_RESPONSE_BYTES?: number;
}

/** The guard options a service's configuration asks for. */
export function outboundGuardOptionsOf(config: OutboundConfig): OutboundGuardOptions {
  return {
    allowHosts: config.OUTBOUND_ALLOW_HOSTS,
    allowHttp: config.OUTBOUND_ALLOW_HTTP,
    ...(config.OUTBOUND_TIMEOUT_MS === undefined ? {} : { timeoutMs: config.OUTBOUND_TIMEOUT_MS }),
    ...(config.OUTBOUND_MAX_RESPONSE_BYTES === undefined
      ? {}
      : { maxResponseBytes: config.OUTBOUND_MAX_RESPONSE_BYTES }),
  };
}

/**
 * The guard of a service, as its configuration asks, logging to the service's log (refusals and
 * failures at warn, redirects at debug); `overrides` win (e.g. a service's own deadline).
 */
export function createServiceOutboundGuard(
  service: { name: string; version: string; config: OutboundConfig & { LOG_LEVEL: string } },
  overrides: Partial<OutboundGuardOptions> = {},
): OutboundGuard {
  return createOutboundGuard({
    ...outboundGuardOptionsOf(service.config),
    userAgent: `attesto-${service.name}/${service.version}`,
    logger: createLogger(service.name, service.config.LOG_LEVEL),
    ...overrides,
  });
}
