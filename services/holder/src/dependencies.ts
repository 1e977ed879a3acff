import { keysV1, ledgerV1, notaryV1 } from "@attesto/proto";
import { parsePemCertificates } from "@attesto/protocol";
import { createEnvelopeSealer } from "@attesto/runtime/crypto";
import { createServiceOutboundGuard } from "@attesto/runtime/http";
import { createArgon2PasswordHasher } from "@attesto/runtime/passwords";
import type { ServiceContext } from "@attesto/runtime/service";
import { createLedger } from "./clients/ledger.js";
import { createNotary } from "./clients/notary.js";
import { outboundHttpOf } from "./clients/outbound-http.js";
import { createStatusListTokens } from "./clients/status-list-tokens.js";
import { createVerifierTrustAnchors } from "./clients/verifier-trust-anchors.js";
import type { HolderConfig } from "./config.js";
import { createHolderTokens } from "./domain/accounts/holder-token.js";
import { createWalletClient } from "./domain/oid4vci/wallet-attestation.js";
import type { HolderDependencies } from "./domain/ports.js";
import { createAuthorizationFlowStore } from "./store/authorization-flow.store.js";
import { createCredentialStore } from "./store/credential.store.js";
import { createDidStore } from "./store/did.store.js";
import { createLoginAttemptStore } from "./store/login-attempt.store.js";
import { createUserStore } from "./store/user.store.js";

/**
 * The holder's dependencies from its service context: stores, ledger client, outbound HTTP, status
 * lists, tokens. `overrides` replaces any of them (tests: the ledger and notary doubles, an `http`
 * that reaches their doubles on loopback); the clock is the context's.
 */
export function createDependencies(
  context: ServiceContext<HolderConfig>,
  overrides: Partial<HolderDependencies> = {},
): HolderDependencies {
  const { config } = context;
  const now = overrides.now ?? context.clock;
  const sealer = createEnvelopeSealer(config.KEY_ENCRYPTION_KEYS);
  const http =
    overrides.http ??
    outboundHttpOf(createServiceOutboundGuard({ name: context.service, version: context.version, config }));
  return {
    users: createUserStore(context.db),
    dids: createDidStore(context.db),
    credentials: createCredentialStore(context.db, sealer),
    passwords: createArgon2PasswordHasher(),
    loginAttempts: createLoginAttemptStore(context.db),
    tokens: createHolderTokens({
      secret: config.HOLDER_TOKEN_SECRET,
      issuer: context.publicUrl,
      ttlSeconds: config.HOLDER_TOKEN_TTL_SECONDS,
      now,
    }),
    ledger:
      overrides.ledger ??
      createLedger(
        context.rpcClient(ledgerV1.LedgerService, { baseUrl: config.LEDGER_INTERNAL_URL, audience: "ledger" }),
      ),
    notary:
      overrides.notary ??
      createNotary(
        context.rpcClient(notaryV1.NotaryService, { baseUrl: config.SCHEDULER_INTERNAL_URL, audience: "scheduler" }),
      ),
    http,
    verifierTrustAnchors: createVerifierTrustAnchors(
      config.VERIFIER_TRUST_ANCHORS_FROM_PLATFORM
        ? context.rpcClient(keysV1.KeyCustodyService, {
            baseUrl: config.TRUST_REGISTRY_INTERNAL_URL,
            audience: "trust-registry",
          })
        : undefined,
      config.VERIFIER_TRUST_ANCHORS_PEM ? parsePemCertificates(config.VERIFIER_TRUST_ANCHORS_PEM) : [],
      { cacheMs: config.VERIFIER_TRUST_ANCHORS_CACHE_SECONDS * 1000 },
    ),
    statusLists: createStatusListTokens(http, {
      maxCacheSeconds: config.STATUS_LIST_MAX_CACHE_SECONDS,
      timeoutMs: config.STATUS_LIST_TIMEOUT_MS,
      now: () => now().getTime(),
    }),
    authorizationFlows: createAuthorizationFlowStore(context.db, sealer),
    wallet: createWalletClient({
      clientId: config.WALLET_CLIENT_ID ?? context.publicUrl,
      providerIssuer: context.publicUrl,
      providerKey: config.WALLET_PROVIDER_KEY,
      ttlSeconds: config.WALLET_ATTESTATION_TTL_SECONDS,
      attestation:
        config.WALLET_ATTESTATION && config.WALLET_INSTANCE_KEY
          ? { attestation: config.WALLET_ATTESTATION, instanceKey: config.WALLET_INSTANCE_KEY }
          : undefined,
    }),
    callbackUrl: `${context.publicUrl}/v1/oid4vci/callback`,
    authorizationFlowTtlSeconds: config.AUTHORIZATION_FLOW_TTL_SECONDS,
    clockSkewSeconds: config.CLOCK_SKEW_SECONDS,
    now,
    ...overrides,
  };
}
