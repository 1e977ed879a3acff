import { keysV1, ledgerV1, notaryV1, tenantV1 } from "@attesto/proto";
import { parsePemCertificates } from "@attesto/protocol";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createServiceOutboundGuard } from "@attesto/runtime/http";
import { createLogger } from "@attesto/runtime/logging";
import type { ServiceContext } from "@attesto/runtime/service";
import { createApiKeyAuthenticator } from "@attesto/tenant-client";
import { createIssuerDocumentFetcher } from "./clients/issuer-document-fetcher.js";
import { createLedgerDidResolver } from "./clients/ledger-did-resolver.js";
import { createRegisteredIssuers } from "./clients/registered-issuers.js";
import { createStatusListTokens } from "./clients/status-list-tokens.js";
import { createTrustAnchorSource } from "./clients/trust-anchor-source.js";
import { createVerificationEvents } from "./clients/verification-events.js";
import { createVerifierKeys } from "./clients/verifier-keys.js";
import type { VerifierConfig } from "./config.js";
import type { VerifierDependencies } from "./domain/ports.js";
import { createDcApiSessionStore } from "./store/dc-api-session.store.js";
import { createVerificationSessionStore } from "./store/verification-session.store.js";
import { createVerifierPolicyStore } from "./store/verifier-policy.store.js";
import { createVerificationRecorder } from "./verifier-metrics.js";

/** Issuer documents (metadata, JWKS) kept at most. */
const ISSUER_DOCUMENT_CACHE_ENTRIES = 1000;

/** Status List Tokens kept at most (each holds its inflated list, at most MAX_STATUS_LIST_BYTES). */
const STATUS_LIST_CACHE_ENTRIES = 50;

/** The verifier's dependencies from its service context: store, sealer, and clients of its edges. */
export function createDependencies(context: ServiceContext<VerifierConfig>): VerifierDependencies {
  const { config } = context;
  const tenants = context.rpcClient(tenantV1.TenantService, {
    baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
    audience: "trust-registry",
  });
  const keys = context.rpcClient(keysV1.KeyCustodyService, {
    baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
    audience: "trust-registry",
  });
  const ledger = context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" });
  const outbound = createServiceOutboundGuard({ name: context.service, version: context.version, config });
  const configuredRoots = config.TRUSTED_X509_ROOTS_PEM ? parsePemCertificates(config.TRUSTED_X509_ROOTS_PEM) : [];
  return {
    sessions: createVerificationSessionStore(context.db),
    dcApiSessions: createDcApiSessionStore(context.db),
    policies: createVerifierPolicyStore(context.db),
    sealer: createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS),
    apiKeys: createApiKeyAuthenticator(tenants, context.cacheInvalidations),
    ledger: createLedgerDidResolver(ledger),
    trustAnchors: createTrustAnchorSource(keys, configuredRoots, {
      cacheMs: config.TRUST_ANCHORS_CACHE_SECONDS * 1000,
    }),
    verifierKeys: createVerifierKeys(keys),
    issuerDocuments: createIssuerDocumentFetcher(outbound, {
      cacheMs: config.ISSUER_METADATA_CACHE_SECONDS * 1000,
      maxEntries: ISSUER_DOCUMENT_CACHE_ENTRIES,
    }),
    statusLists: createStatusListTokens(outbound, {
      maxCacheSeconds: config.STATUS_LIST_MAX_CACHE_SECONDS,
      maxEntries: STATUS_LIST_CACHE_ENTRIES,
    }),
    registeredIssuers: createRegisteredIssuers(tenants, {
      cacheMs: config.REGISTERED_ISSUERS_CACHE_SECONDS * 1000,
      invalidations: context.cacheInvalidations,
    }),
    verifierUrl: context.publicUrl,
    limits: { clockSkewSeconds: config.CLOCK_SKEW_SECONDS, kbJwtMaxAgeSeconds: config.KB_JWT_MAX_AGE_SECONDS },
    recorder: createVerificationRecorder(context),
    events: createVerificationEvents(
      context.rpcClient(notaryV1.NotaryService, { baseUrl: config.SCHEDULER_INTERNAL_URL, audience: "scheduler" }),
      createLogger(context.service, config.LOG_LEVEL),
    ),
    now: () => new Date(),
  };
}
