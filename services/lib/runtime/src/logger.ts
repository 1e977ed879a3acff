import pino, { type Logger, type LoggerOptions } from "pino";
import { redactUrl } from "./http/redact-url.js";
import { logDestination } from "./log-destination.js";
import { traceContextMixin } from "./telemetry/log-trace-context.js";

/**
 * Paths pino removes from every log line. Secrets never reach the log: credentials in headers,
 * passwords, private keys, codes and tokens in bodies.
 */
export const redactedPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-api-key']",
  "req.headers.dpop",
  "req.headers['oauth-client-attestation']",
  "req.headers['oauth-client-attestation-pop']",
  "res.headers['set-cookie']",
  "*.password",
  "*.private_key",
  "*.issuer_private_key",
  "*.verifier_private_key",
  "*.api_key",
  "*.access_token",
  // OAuth authorization codes travel in bodies and query strings; `err.code` (ECONNREFUSED, ...) stays visible.
  "body.code",
  "*.body.code",
  "query.code",
  "*.query.code",
  "*.code_verifier",
  "*['pre-authorized_code']",
  "*.tx_code",
  "*.secret",
  // The scheduler's EVM signer key (LEDGER_BACKEND=evm), should a configuration object ever be logged.
  "EVM_SIGNER_KEY",
  "*.EVM_SIGNER_KEY",
  "*.signerKey",
];

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/**
 * How a request appears in the access log: method, URL with only allow-listed query values (the
 * rest `[redacted]`: tokens, codes and request_uri travel in query strings), host and peer.
 */
function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: typeof request.url === "string" ? redactUrl(request.url) : undefined,
    host: request.host ?? request.hostname,
    remoteAddress: request.ip ?? request.socket?.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}

export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    messageKey: "message",
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: { paths: redactedPaths, censor: "[redacted]" },
    serializers: { req: serializeRequest },
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceContextMixin,
  };
}

/** A service's logger: its options (loggerOptions) on the process's one log destination (log-destination.ts). */
export function createLogger(service: string, level: string): Logger {
  return pino(loggerOptions(service, level), logDestination());
}
