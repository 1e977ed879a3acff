import type { ClientAttestationError, DpopProofError } from "@attesto/protocol";
import type { ServiceMetrics } from "@attesto/runtime/telemetry";
import { Counter } from "prom-client";

const DPOP_FAILURES = "dpop_proof_failures_total";
const CLIENT_ATTESTATION_FAILURES = "client_attestation_failures_total";

function reasonCounter(metrics: ServiceMetrics, name: string, help: string): Counter<"reason"> {
  return (
    (metrics.registry.getSingleMetric(name) as Counter<"reason"> | undefined) ??
    new Counter({ name, help, labelNames: ["reason"], registers: [metrics.registry] })
  );
}

/** Counts refused DPoP proofs by reason (`nonce`, `signature`, `replay`, ...), on the service's registry. */
export function dpopFailureCounter(metrics: ServiceMetrics): (error: DpopProofError) => void {
  const counter = reasonCounter(
    metrics,
    DPOP_FAILURES,
    "DPoP proofs refused at the token and PAR endpoints, by reason",
  );
  return (error) => counter.inc({ reason: error.reason });
}

/** Counts refused client attestations by reason (`untrusted`, `expired`, `replay`, ...). */
export function clientAttestationFailureCounter(metrics: ServiceMetrics): (error: ClientAttestationError) => void {
  const counter = reasonCounter(
    metrics,
    CLIENT_ATTESTATION_FAILURES,
    "Client attestations (attest_jwt_client_auth) refused, by reason",
  );
  return (error) => counter.inc({ reason: error.reason });
}
