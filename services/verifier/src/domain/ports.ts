import type { Certificate, StatusListTokenSource } from "@attesto/protocol";
import type { CacheScope } from "@attesto/protocol/cache";
import type { DcApiSession } from "./dc-api/dc-api-session.js";
import type { PendingSessions } from "./pending-sessions.js";
import type { VerifierCertificateSource, VerifierPolicy } from "./policy/verifier-policy.js";
import type { RecordedOutcomes } from "./recorded-outcomes.js";
import type { DidResolution, IssuerStanding, RegisteredIssuerSnapshot } from "./upstream.js";
import type {
  CheckResult,
  PresentationMetadata,
  VerificationMode,
  VerificationSession,
} from "./verification-session.js";

/**
 * The verifier's ports: what its use cases need from stores, edges and the runtime, implemented in
 * `src/store/`, `src/clients/` and `src/verifier-metrics.ts` and wired by `src/dependencies.ts`.
 */

export interface VerificationOutcome {
  status: "completed" | "failed";
  checkResults: CheckResult[];
  presentationMetadata: PresentationMetadata | undefined;
  verifiedAt: Date;
}

/** A verified submission as it is recorded: how it was verified, when it arrived, and the outcome. */
export interface SubmittedVerification extends VerificationOutcome {
  mode: VerificationMode;
  submittedAt: Date;
  /** Same-device sessions: SHA-256 of the response_code handed to the wallet. */
  responseCodeHash: string | undefined;
}

/** How long a new session lives, before its tenant's verifier policies cap it. */
export interface SessionLifetime {
  /** The relying party's `expires_in`, if it gave one. */
  requestedSeconds: number | undefined;
  defaultSeconds: number;
}

/** Where sessions live (PostgreSQL in production; the store implements it). */
export interface VerificationSessionRepository {
  /**
   * Stores a new session; returns its `expiresAt`: `createdAt` plus the requested seconds (else the
   * default), at most the shortest session TTL among its tenant's verifier policies, a policy TTL
   * replacing the default when none was requested. The policies are read in the same statement.
   */
  insert(session: Omit<VerificationSession, "expiresAt">, lifetime: SessionLifetime): Promise<Date>;
  findById(id: string): Promise<VerificationSession | undefined>;
  findByRequestUriId(requestUriId: string): Promise<VerificationSession | undefined>;
  /**
   * The session a presentation answers (by `state` or by the response encryption key's `kid`)
   * together with its tenant's verifier policies (ordered by name): one read instead of two.
   */
  findForPresentation(
    by: { state: string } | { encryptionKid: string },
  ): Promise<{ session: VerificationSession; policies: VerifierPolicy[] } | undefined>;
  /**
   * Clears the session's response_code hash if it is still `hash` (single use: of concurrent
   * callers exactly one gets true).
   */
  consumeResponseCode(id: string, hash: string): Promise<boolean>;
  /**
   * pending -> completed | failed in one conditional write, after the checks ran: records the
   * submission (mode, arrival time, the same-device response_code hash) with the outcome and drops
   * the session's keys. Single use: of concurrent submissions exactly one gets true; false when the
   * session is no longer pending or had expired when the presentation arrived (`submittedAt`).
   */
  recordVerification(id: string, verification: SubmittedVerification): Promise<boolean>;
  /**
   * in_progress since before `submittedBefore` -> failed with `checkResult`; returns how many. This
   * version never writes in_progress (it verifies first, then records); the rows are those an earlier
   * version's replica left when it died mid-verification (a rolling upgrade).
   */
  failInterrupted(submittedBefore: Date, checkResult: CheckResult, now: Date): Promise<number>;
  /** Drops the keys of sessions that expired before `now` without a presentation; returns how many. */
  dropKeysOfExpiredSessions(now: Date): Promise<number>;
}

/** Where DC API sessions live (PostgreSQL; the store implements it). */
export interface DcApiSessionRepository {
  insert(session: Omit<DcApiSession, "origin">): Promise<void>;
  find(sessionId: string): Promise<DcApiSession | undefined>;
  /** Records the origin of the accepted response. */
  recordOrigin(sessionId: string, origin: string): Promise<void>;
}

/** Where verifier policies live (PostgreSQL; the store implements it). Every call is scoped to a tenant. */
export interface VerifierPolicyRepository {
  /**
   * Inserts or replaces the policy (tenant, name), unless the stored one has the same digest.
   * Returns the stored policy and whether anything changed.
   */
  apply(policy: VerifierPolicy): Promise<{ policy: VerifierPolicy; changed: boolean }>;
  /** Removes a policy; false when there was none. */
  delete(tenant: string, name: string): Promise<boolean>;
  find(tenant: string, name: string): Promise<VerifierPolicy | undefined>;
  /** The tenant's policies, by name. */
  listByTenant(tenant: string): Promise<VerifierPolicy[]>;
  /**
   * The same, never behind the database (a coherent cache, store/verifier-policy.store.ts): what
   * the database holds when `scope`'s request began. Shared between requests: never changed.
   */
  current(tenant: string, scope: CacheScope): Promise<readonly VerifierPolicy[]>;
}

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
 * GETs JSON documents from issuers' web origins (JWT VC Issuer Metadata, JWKS): through the
 * outbound request guard, bounded in time and size, cached. Throws IssuerFetchError.
 */
export interface IssuerDocumentFetcher {
  /** `refresh`: skip the cache (a key the cached document lacks may have been published since). */
  fetchJson(url: string, options?: { refresh?: boolean }): Promise<unknown>;
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
  standingOf(issuer: { iss: string; did?: string | undefined }, scope?: CacheScope): Promise<IssuerStanding>;
}

/**
 * Seals secrets at rest (the runtime's envelope sealer, `@attesto/runtime/crypto`): `context` binds
 * an envelope to the row it belongs to, so a sealed value copied elsewhere does not open.
 */
export interface SecretSealer {
  seal(plaintext: Uint8Array, context: string): string;
  open(envelope: string, context: string): Uint8Array;
}

/** The tenant an X-API-Key belongs to, as the trust registry vouches for it. */
export interface ApiKeyTenant {
  accountUuid: string;
  tenant: string;
  name: string;
  isIssuer: boolean;
  isVerifier: boolean;
}

/** Checks X-API-Key values (`@attesto/tenant-client`: TenantService.AuthenticateApiKey); routes use it through `requireApiKey`. */
export interface ApiKeyAuthenticator {
  authenticate(apiKey: string): Promise<ApiKeyTenant>;
}

/** Tolerances of the verification checks (configuration, in seconds). */
export interface VerificationLimits {
  /** Skew allowed on credential iat/nbf/exp and on a KB-JWT iat in the future. */
  clockSkewSeconds: number;
  /** Oldest acceptable KB-JWT iat. */
  kbJwtMaxAgeSeconds: number;
}

/** Counts finished verifications (Prometheus), by result and the first failed check. */
export interface VerificationRecorder {
  record(result: "completed" | "failed", failedCheck: string | undefined): void;
}

/** The tenant's verification webhooks (scheduler); never throws. */
export interface VerificationEvents {
  finished(event: { tenant: string; sessionId: string; verified: boolean; result: object }): Promise<void>;
}

/**
 * The tenant's verifier identity in key custody (KeyCustodyService, trust registry): the P-256 key
 * never leaves custody; the verifier gets its id and chain, and signatures over signing inputs.
 */
export interface VerifierKeys {
  /** GetVerifierCertificate: `x5c` is standard base64 DER, leaf first, no trust anchor. */
  certificate(
    tenant: string,
    source: VerifierCertificateSource,
    host: string,
  ): Promise<{ keyId: string; x5c: string[] }>;
  /** Sign: the raw ES256 signature (r || s) of `signingInput` by the tenant's custody key `keyId`. */
  sign(tenant: string, keyId: string, signingInput: Uint8Array): Promise<Uint8Array>;
}

/** Who signs a session's request objects and the client_id that names it. */
export interface SessionSigner {
  clientId: string;
  /** Caller key: the DID URL of a DID verifier. */
  kid?: string;
  /** Caller key: the Ed25519 seed, sealed with the session. */
  seed?: Uint8Array;
  /** Tenant verifier certificate: the custody key and its chain. */
  keyId?: string;
  x5c?: string[];
}

/**
 * What routes and use cases work with, built once per running service from the service context
 * (`src/dependencies.ts`); use cases take the `Pick` of it they use.
 */
export interface VerifierDependencies {
  sessions: VerificationSessionRepository;
  /** The sessions whose verification this process recorded, until their first result read here. */
  outcomes: RecordedOutcomes;
  /** The direct_post sessions this process created, until a presentation for one is decided here. */
  pendingSessions: PendingSessions;
  /** The Digital Credentials API side of `dc_api*` sessions (expected origins, signed, bound origin). */
  dcApiSessions: DcApiSessionRepository;
  /** The tenants' verifier policies (VerifierPolicyService). */
  policies: VerifierPolicyRepository;
  /** Seals the session's private keys at rest (context `session:<id>`). */
  sealer: SecretSealer;
  apiKeys: ApiKeyAuthenticator;
  ledger: LedgerDidResolver;
  trustAnchors: TrustAnchorSource;
  /** The tenants' verifier certificates and signatures (x509 client ids). */
  verifierKeys: VerifierKeys;
  /** Issuers' Token Status Lists (through the outbound request guard, cached by their ttl). */
  statusLists: StatusListTokens;
  /** JWT VC Issuer Metadata and JWKS of http(s) issuers (through the outbound request guard). */
  issuerDocuments: IssuerDocumentFetcher;
  /** The issuers registered on this platform (TenantService.ListRegisteredIssuers). */
  registeredIssuers: RegisteredIssuers;
  /** Public URL of this verifier, without a trailing slash. */
  verifierUrl: string;
  limits: VerificationLimits;
  recorder: VerificationRecorder;
  events: VerificationEvents;
  /** The service's clock (`context.clock`). */
  now(): Date;
}
