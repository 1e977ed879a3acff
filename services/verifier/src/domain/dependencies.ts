import type { DcApiSessionRepository } from "./dc-api/dc-api-session.js";
import type { VerifierPolicyRepository } from "./policy/verifier-policy-repository.js";
import type {
  IssuerDocumentFetcher,
  LedgerDidResolver,
  RegisteredIssuers,
  StatusListTokens,
  TrustAnchorSource,
} from "./upstream.js";
import type { VerificationSessionRepository } from "./verification-session-repository.js";

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

/** Which of a tenant's verifier certificates (a VerifierPolicy names it; the platform's by default). */
export type VerifierCertificateSource = "platform" | "imported";

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

/** What routes and use cases work with, built once per app from the service context. */
export interface VerifierDependencies {
  sessions: VerificationSessionRepository;
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
  now(): Date;
}
