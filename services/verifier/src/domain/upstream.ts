import type { Certificate, StatusListTokenSource } from "@attesto/protocol";

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
  /** `configured`: the TRUSTED_X509_ROOTS_PEM part of `certificates` (anchors of non-tenant issuers). */
  anchors(): Promise<{ certificates: Certificate[]; unavailable: boolean; configured?: Certificate[] }>;
}

/**
 * Status List Tokens (draft-ietf-oauth-status-list) by URI: fetched through the outbound request
 * guard, structure-checked (not their signature: that depends on the credential), cached for their
 * `ttl`. Throws StatusListFetchError, or StatusListTokenError for a token that is not one.
 */
export type StatusListTokens = StatusListTokenSource;

/**
 * An issuer's web document could not be fetched: refused by the outbound policy, timed out, too
 * large, not JSON or not a 2xx answer. The message is generic and safe to show.
 */
export class IssuerFetchError extends Error {
  override name = "IssuerFetchError";
}

/**
 * GETs JSON documents from issuers' web origins (JWT VC Issuer Metadata, JWKS): through the
 * outbound request guard, bounded in time and size, cached. Throws IssuerFetchError.
 */
export interface IssuerDocumentFetcher {
  /** `refresh`: skip the cache (a key the cached document lacks may have been published since). */
  fetchJson(url: string, options?: { refresh?: boolean }): Promise<unknown>;
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

/**
 * The platform's registered issuers, cached briefly. `lookup` answers from the cached snapshot
 * when `isKnown` holds there, else from a fresh one (an issuer registered a moment ago is found).
 * Throws UpstreamUnavailableError when the trust registry cannot answer.
 */
export interface RegisteredIssuers {
  snapshot(isKnown?: (snapshot: RegisteredIssuerSnapshot) => boolean): Promise<RegisteredIssuerSnapshot>;
  /**
   * Where the issuer stands in the trust registry's tenant lifecycle (TenantService.GetIssuerStanding),
   * never behind it (a coherent cache, clients/registered-issuers.ts): a tenant deactivated a moment
   * ago is `deactivated` at once on every replica. Throws UpstreamUnavailableError when the trust
   * registry cannot answer.
   */
  standingOf(issuer: { iss: string; did?: string | undefined }): Promise<IssuerStanding>;
}

/** An active issuer tenant, a deactivated one, or no issuer tenant of this platform. */
export type IssuerStanding = "active" | "deactivated" | "unknown";
