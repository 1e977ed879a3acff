import { issuanceV1 } from "@attesto/proto";
import {
  type ClientAttestationTrust,
  createAccessTokenSigner,
  createClientAttestationTrust,
  createDpopNonces,
  DEFAULT_DPOP_NONCE_LIFETIME_SECONDS,
} from "@attesto/protocol";
import type { ServiceContext } from "@attesto/runtime/service";
import type { JWK } from "jose";
import { createGrantRedeemer } from "./clients/grant-service.client.js";
import { createIssuerDisplayClient } from "./clients/issuer-display.client.js";
import type { AuthServerConfig } from "./config.js";
import { DEMO_WALLET_PROVIDER_PUBLIC_JWK } from "./demo-wallet-provider.js";
import type { AuthServerDependencies } from "./domain/ports.js";
import { createAuthorizationCodeStore } from "./store/authorization-code.store.js";
import { createAuthorizationRequestStore } from "./store/authorization-request.store.js";
import { createBrowserSessionStore } from "./store/browser-session.store.js";
import { createUnansweredRedemptionStore } from "./store/unanswered-redemption.store.js";

/** The trusted wallet providers: configured keys and roots, plus the demo provider unless disabled. */
export function clientAttestationTrustOf(config: AuthServerConfig): ClientAttestationTrust {
  const keys: JWK[] = [...(config.CLIENT_ATTESTATION_TRUSTED_KEYS ?? [])];
  if (config.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER) keys.push(DEMO_WALLET_PROVIDER_PUBLIC_JWK);
  return createClientAttestationTrust({ keys, x5cRoots: config.CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM ?? [] });
}

/**
 * The production dependencies, from the service context and its configuration: the clock is the
 * context's (expiries, token and nonce times); `overrides` replace single edges (tests: the
 * GrantService double, the issuer metadata), and the access-token signer and DPoP nonces read the
 * overriding `now` when one is given.
 */
export function createDependencies(
  context: ServiceContext<AuthServerConfig>,
  overrides: Partial<AuthServerDependencies> = {},
): AuthServerDependencies {
  const { config } = context;
  const now = overrides.now ?? context.clock;
  return {
    grants:
      overrides.grants ??
      createGrantRedeemer(
        context.rpcClient(issuanceV1.GrantService, {
          baseUrl: config.CREDENTIAL_ISSUER_INTERNAL_URL,
          audience: "credential-issuer",
        }),
      ),
    accessTokenSigner:
      overrides.accessTokenSigner ??
      createAccessTokenSigner({
        privateJwk: config.ACCESS_TOKEN_SIGNING_KEY,
        issuer: context.publicUrl,
        ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
        now,
      }),
    dpopNonces:
      overrides.dpopNonces ??
      createDpopNonces({
        secret: config.DPOP_NONCE_SECRET,
        lifetimeSeconds: DEFAULT_DPOP_NONCE_LIFETIME_SECONDS,
        now,
      }),
    clientAttestationTrust: overrides.clientAttestationTrust ?? clientAttestationTrustOf(config),
    issuerDisplay:
      overrides.issuerDisplay ??
      createIssuerDisplayClient({
        credentialIssuerUrl: config.CREDENTIAL_ISSUER_URL,
        timeoutMs: config.RPC_TIMEOUT_MS,
      }),
    authorizationRequests: overrides.authorizationRequests ?? createAuthorizationRequestStore(context.db),
    authorizationCodes: overrides.authorizationCodes ?? createAuthorizationCodeStore(context.db),
    browserSessions: overrides.browserSessions ?? createBrowserSessionStore(context.db),
    unansweredRedemptions: overrides.unansweredRedemptions ?? createUnansweredRedemptionStore(context.db),
    now,
  };
}
