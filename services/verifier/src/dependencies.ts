import { keysV1, ledgerV1, notaryV1, tenantV1 } from "@attesto/proto";
import { parsePemCertificates } from "@attesto/protocol";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createServiceOutboundGuard } from "@attesto/runtime/http";
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
import { createPendingSessions } from "./domain/pending-sessions.js";
import type { VerifierDependencies } from "./domain/ports.js";
import { createRecordedOutcomes } from "./domain/recorded-outcomes.js";
import { createDcApiSessionStore } from "./store/dc-api-session.store.js";
import { createVerificationSessionStore } from "./store/verification-session.store.js";
import { createVerifierPolicyStore } from "./store/verifier-policy.store.js";
import { createVerificationRecorder } from "./verifier-metrics.js";

/** Issuer documents (metadata, JWKS) kept at most. */
const ISSUER_DOCUMENT_CACHE_ENTRIES = 1000;

/** Status List Tokens kept at most (each holds its inflated list, at most MAX_STATUS_LIST_BYTES). */
const STATUS_LIST_CACHE_ENTRIES = 50;

/**
 * The verifier's dependencies from its service context: stores, sealer, and clients of its edges.
 * `service.ts` builds them once per running service (`perService`) for the public app, the RPC
 * handlers and the sweeps. The clock and the logger are the context's; `overrides` replace single
 * edges (tests: in-memory issuers' web origins), and the status lists built here read the clock
 * that is used (an overridden `now` included).
 */
export function createDependencies(
  context: ServiceContext<VerifierConfig>,
  overrides: Partial<VerifierDependencies> = {},
): VerifierDependencies {
  const { config } = context;
  const now = overrides.now ?? context.clock;
  const tenants = context.rpcClient(tenantV1.TenantService, {
    baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
    audience: "trust-registry",
  });
  const keys = context.rpcClient(keysV1.KeyCustodyService, {
    baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
    audience: "trust-registry",
  });
  const outbound = createServiceOutboundGuard({ name: context.service, version: context.version, config });
  const configuredRoots = config.TRUSTED_X509_ROOTS_PEM ? parsePemCertificates(config.TRUSTED_X509_ROOTS_PEM) : [];
  return {
    sessions: overrides.sessions ?? createVerificationSessionStore(context.db),
    outcomes: overrides.outcomes ?? createRecordedOutcomes(),
    pendingSessions: overrides.pendingSessions ?? createPendingSessions(),
    dcApiSessions: overrides.dcApiSessions ?? createDcApiSessionStore(context.db),
    policies: overrides.policies ?? createVerifierPolicyStore(context.db, context.cacheInvalidations),
    sealer: overrides.sealer ?? createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS),
    apiKeys: overrides.apiKeys ?? createApiKeyAuthenticator(tenants, context.cacheInvalidations),
    ledger:
      overrides.ledger ??
      createLedgerDidResolver(
        context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
      ),
    trustAnchors:
      overrides.trustAnchors ??
      createTrustAnchorSource(keys, configuredRoots, { cacheMs: config.TRUST_ANCHORS_CACHE_SECONDS * 1000 }),
    verifierKeys: overrides.verifierKeys ?? createVerifierKeys(keys),
    issuerDocuments:
      overrides.issuerDocuments ??
      createIssuerDocumentFetcher(outbound, {
        cacheMs: config.ISSUER_METADATA_CACHE_SECONDS * 1000,
        maxEntries: ISSUER_DOCUMENT_CACHE_ENTRIES,
      }),
    statusLists:
      overrides.statusLists ??
      createStatusListTokens(outbound, {
        maxCacheSeconds: config.STATUS_LIST_MAX_CACHE_SECONDS,
        maxEntries: STATUS_LIST_CACHE_ENTRIES,
        now: () => now().getTime(),
      }),
    registeredIssuers:
      overrides.registeredIssuers ??
      createRegisteredIssuers(tenants, {
        cacheMs: config.REGISTERED_ISSUERS_CACHE_SECONDS * 1000,
        invalidations: context.cacheInvalidations,
      }),
    verifierUrl: overrides.verifierUrl ?? context.publicUrl,
    limits: overrides.limits ?? {
      clockSkewSeconds: config.CLOCK_SKEW_SECONDS,
      kbJwtMaxAgeSeconds: config.KB_JWT_MAX_AGE_SECONDS,
    },
    recorder: overrides.recorder ?? createVerificationRecorder(context),
    events:
      overrides.events ??
      createVerificationEvents(
        context.rpcClient(notaryV1.NotaryService, { baseUrl: config.SCHEDULER_INTERNAL_URL, audience: "scheduler" }),
        context.logger,
      ),
    now,
  };
}
