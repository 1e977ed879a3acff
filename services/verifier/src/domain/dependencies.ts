import type { EnvelopeSealer } from "@attesto/runtime/crypto";
import type { ApiKeyAuthenticator } from "@attesto/runtime/http";
import type { VerifierPolicyRepository } from "./policy/verifier-policy-repository.js";
import type {
  CredentialStatusSource,
  IssuerDocumentFetcher,
  LedgerDidResolver,
  RegisteredIssuers,
  TrustAnchorSource,
} from "./upstream.js";
import type { VerificationSessionRepository } from "./verification-session-repository.js";

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

/** What routes and use cases work with, built once per app from the service context. */
export interface VerifierDependencies {
  sessions: VerificationSessionRepository;
  /** The tenants' verifier policies (VerifierPolicyService). */
  policies: VerifierPolicyRepository;
  /** Seals the session's private keys at rest (context `session:<id>`). */
  sealer: EnvelopeSealer;
  apiKeys: ApiKeyAuthenticator;
  ledger: LedgerDidResolver;
  trustAnchors: TrustAnchorSource;
  credentialStatus: CredentialStatusSource;
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
