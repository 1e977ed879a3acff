import type { LoggerOptions } from "pino";

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
];

export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    messageKey: "message",
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: { paths: redactedPaths, censor: "[redacted]" },
    formatters: { level: (label) => ({ level: label }) },
  };
}
