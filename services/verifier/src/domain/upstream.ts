import type { Certificate } from "@attesto/protocol";

/** A dependency (ledger, trust registry, credential issuer) could not answer; checks fail closed on it. */
export class UpstreamUnavailableError extends Error {
  override name = "UpstreamUnavailableError";
}

export type DidResolution = { found: true; document: Record<string, unknown>; deactivated: boolean } | { found: false };

/**
 * An issuer's web document could not be fetched: refused by the outbound policy, timed out, too
 * large, not JSON or not a 2xx answer. The message is generic and safe to show.
 */
export class IssuerFetchError extends Error {
  override name = "IssuerFetchError";
}

/** What the platform vouches for as issuers (TenantService.ListRegisteredIssuers). */
export interface RegisteredIssuerSnapshot {
  /** The `iss` URLs of active issuer tenants. */
  issuerUrls: ReadonlySet<string>;
  /** Active issuer tenants' DIDs. */
  dids: ReadonlySet<string>;
  /** X.509 roots of tenants' signing certificates (platform root CA, roots of imported chains). */
  x509Roots: readonly Certificate[];
}

/** An active issuer tenant, a deactivated one, or no issuer tenant of this platform. */
export type IssuerStanding = "active" | "deactivated" | "unknown";
