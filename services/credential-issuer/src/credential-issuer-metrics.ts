import { Counter, type Registry } from "prom-client";

/** Domain counters of the issuer, next to the runtime's RED metrics on the internal port's /metrics. */
export interface IssuerMetrics {
  /** Credentials issued, by signing path (`did` or `x509`). */
  credentialsIssued: Counter<"signing">;
  /** Refused credential requests, by OAuth error code (invalid_token, use_dpop_nonce, invalid_proof, ...). */
  credentialRequestsRefused: Counter<"error">;
}

function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  // One registry per service context; an app rebuilt on the same context reuses its counters.
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function createIssuerMetrics(registry: Registry): IssuerMetrics {
  return {
    credentialsIssued: counter(registry, "attesto_credentials_issued_total", "Credentials issued, by signing path", [
      "signing",
    ]),
    credentialRequestsRefused: counter(
      registry,
      "attesto_credential_requests_refused_total",
      "Credential requests refused, by error code",
      ["error"],
    ),
  };
}
