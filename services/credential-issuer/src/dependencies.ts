import { createHmac } from "node:crypto";
import { keysV1, ledgerV1, notaryV1, schemaV1, tenantV1, tokenStatusV1 } from "@attesto/proto";
import { createAccessTokenVerifier, createCNonces, createDpopNonces } from "@attesto/protocol";
import { createBoundedCache } from "@attesto/runtime/cache";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import type { ServiceContext } from "@attesto/runtime/service";
import { createApiKeyAuthenticator } from "@attesto/tenant-client";
import { createKeyCustodySigners } from "./clients/key-custody-signers.js";
import { createLedger } from "./clients/ledger.js";
import { createNotary } from "./clients/notary.js";
import { createSchemaRegistryTypes } from "./clients/schema-registry-types.js";
import { createAccessTokenStatus } from "./clients/token-status.client.js";
import { createTrustRegistryTenants } from "./clients/trust-registry-tenants.js";
import type { CredentialIssuerConfig } from "./config.js";
import { createClaimsValidators } from "./domain/claims-validators.js";
import { createIssuerKeyring } from "./domain/issuer-keys.js";
import { isPreAuthorizedCodeContext } from "./domain/offer.js";
import { createOfferMemory } from "./domain/offer-memory.js";
import type { IssuerDependencies, SignedStatusList } from "./domain/ports.js";
import { rememberRecentSeals } from "./domain/recent-seals.js";
import { createStatusEntryPool } from "./domain/status-entry-pool.js";
import { statusIndexDraws } from "./domain/status-index-draws.js";
import { createCredentialStore } from "./store/credential.store.js";
import { createIssuanceAllowanceStore } from "./store/issuance-allowance.store.js";
import { createIssuanceReservationStore } from "./store/issuance-reservation.store.js";
import { createIssuerConfigurationStore } from "./store/issuer-configuration.store.js";
import { createIssuerPrivateKeyStore } from "./store/issuer-private-key.store.js";
import { createIssuerSigningKeyStore } from "./store/issuer-signing-key.store.js";
import { createOfferStore } from "./store/offer.store.js";
import { createStatusListStore } from "./store/status-list.store.js";

/** Pre-authorized codes remembered from their sealing until their offer document is first read here (recent-seals.ts). */
const REMEMBERED_CODES = 512;

/** Signed Status List Tokens kept at once (the least recently served go first). */
const CACHED_STATUS_LIST_TOKENS = 1_000;

/** The DPoP nonce key: DPOP_NONCE_SECRET, else one derived from NONCE_SECRET under its own label. */
function dpopNonceSecretOf(config: CredentialIssuerConfig): string {
  return (
    config.DPOP_NONCE_SECRET ??
    createHmac("sha256", config.NONCE_SECRET).update("attesto credential-issuer dpop nonces").digest("base64url")
  );
}

/**
 * The issuer's dependencies from its service context: stores, RPC clients of the trust registry
 * (tenants, API keys, key custody), schema registry and ledger, token and nonce verifiers. Built
 * fresh on every call: `service.ts` shares one per running service (`perService`). The clock is the
 * context's; `overrides` replace members (tests: doubles such as an access token verifier over
 * their own keys), and the members built from another use the overriding one.
 */
export function createDependencies(
  context: ServiceContext<CredentialIssuerConfig>,
  overrides: Partial<IssuerDependencies> = {},
): IssuerDependencies {
  const { config } = context;
  const now = overrides.now ?? context.clock;
  const trustRegistry = { baseUrl: config.TRUST_REGISTRY_INTERNAL_URL, audience: "trust-registry" };
  const tenantClient = context.rpcClient(tenantV1.TenantService, trustRegistry);
  const issuerConfigurations =
    overrides.issuerConfigurations ?? createIssuerConfigurationStore(context.db, context.cacheInvalidations);
  const sealer = overrides.sealer ?? createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS);
  const statusLists = overrides.statusLists ?? createStatusListStore(context.db);
  const deps: IssuerDependencies = {
    issuerUrl: context.publicUrl,
    authorizationServerUrl: config.AUTH_SERVER_URL,
    links: { schemaRegistryUrl: config.SCHEMA_REGISTRY_URL, trustRegistryUrl: config.TRUST_REGISTRY_URL },
    tenants: createTrustRegistryTenants(tenantClient, context.cacheInvalidations),
    apiKeys: createApiKeyAuthenticator(tenantClient, context.cacheInvalidations),
    credentialTypes: createSchemaRegistryTypes(
      context.rpcClient(schemaV1.SchemaService, {
        baseUrl: config.SCHEMA_REGISTRY_INTERNAL_URL,
        audience: "schema-registry",
      }),
    ),
    claimsValidators: createClaimsValidators(),
    ledger: createLedger(
      context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
      context.cacheInvalidations,
    ),
    notary: createNotary(
      context.rpcClient(notaryV1.NotaryService, { baseUrl: config.SCHEDULER_INTERNAL_URL, audience: "scheduler" }),
    ),
    x509Signers: createKeyCustodySigners(context.rpcClient(keysV1.KeyCustodyService, trustRegistry)),
    accessTokens:
      overrides.accessTokens ??
      createAccessTokenVerifier({ jwks: new URL(config.AUTH_SERVER_JWKS_URL), issuer: config.AUTH_SERVER_URL, now }),
    accessTokenStatus: createAccessTokenStatus(
      context.rpcClient(tokenStatusV1.TokenStatusService, {
        baseUrl: config.AUTH_SERVER_INTERNAL_URL,
        audience: "auth-server",
      }),
    ),
    sealer: rememberRecentSeals(sealer, { remembers: isPreAuthorizedCodeContext, size: REMEMBERED_CODES }),
    offers: createOfferStore(context.db),
    offerMemory: createOfferMemory(),
    credentials: createCredentialStore(context.db),
    issuanceAllowances: createIssuanceAllowanceStore(context.db),
    issuanceReservations: createIssuanceReservationStore(context.db),
    issuerConfigurations,
    issuerSigningKeys: createIssuerSigningKeyStore(context.db),
    issuerKeys: createIssuerKeyring({ sealer, issuerPrivateKeys: createIssuerPrivateKeyStore(context.db) }),
    statusLists,
    statusEntries: createStatusEntryPool(statusLists, statusIndexDraws()),
    // The Issuer resource's size, else STATUS_LIST_SIZE: read only when a list may open (no open list, or a nearly full one).
    statusListSizeOf: async (tenant) =>
      (await issuerConfigurations.find(tenant))?.statusListSize ?? config.STATUS_LIST_SIZE,
    statusListTtlSeconds: config.STATUS_LIST_TTL_SECONDS,
    statusListTokenLifetimeSeconds: config.STATUS_LIST_TOKEN_LIFETIME_SECONDS,
    signedStatusLists: createBoundedCache<SignedStatusList>({ max: CACHED_STATUS_LIST_TOKENS }),
    cNonces: createCNonces({
      secret: config.NONCE_SECRET,
      ttlSeconds: config.C_NONCE_TTL_SECONDS,
      now: () => now().getTime(),
    }),
    dpopNonces: createDpopNonces({ secret: dpopNonceSecretOf(config), now }),
    dpopErrorStatus: config.CREDENTIAL_DPOP_NONCE_STATUS,
    replay: context.replayGuard,
    credentialTtlSeconds: config.CREDENTIAL_TTL_SECONDS,
    now,
  };
  return { ...deps, ...overrides };
}
