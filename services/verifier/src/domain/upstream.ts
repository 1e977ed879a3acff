import type { Certificate } from "@attesto/protocol";

/** A dependency (ledger, trust registry, credential issuer) could not answer; checks fail closed on it. */
export class UpstreamUnavailableError extends Error {
  override name = "UpstreamUnavailableError";
}

export type DidResolution = { found: true; document: Record<string, unknown>; deactivated: boolean } | { found: false };

/** Resolves did:ledger DIDs (LedgerService.ResolveDid). Throws UpstreamUnavailableError when the ledger is down. */
export interface LedgerDidResolver {
  resolve(did: string): Promise<DidResolution>;
}

/**
 * Trust anchors for x5c chains: the platform root CAs (KeyCustodyService.GetTrustAnchors) plus the
 * configured TRUSTED_X509_ROOTS_PEM. `unavailable` is set when the trust registry could not be asked.
 */
export interface TrustAnchorSource {
  anchors(): Promise<{ certificates: Certificate[]; unavailable: boolean }>;
}

export type CredentialStatus = "unknown" | "active" | "revoked";

/** Revocation state kept by the credential issuer (CredentialStatusService), by SHA-256 hex of the issuer JWT. */
export interface CredentialStatusSource {
  statusOf(issuerJwtSha256: string): Promise<CredentialStatus>;
}
