import { issuanceV1 } from "@attesto/proto";
import {
  type AccessTokenSigner,
  type ClientAttestationTrust,
  createAccessTokenSigner,
  createClientAttestationTrust,
  createDpopNonces,
  DEFAULT_DPOP_NONCE_LIFETIME_SECONDS,
  type DpopNonces,
} from "@attesto/protocol";
import type { ServiceContext } from "@attesto/runtime/service";
import type { JWK } from "jose";
import type { GrantServiceClient } from "./clients/grant-service.client.js";
import { createIssuerDisplayClient } from "./clients/issuer-display.client.js";
import type { AuthServerConfig } from "./config.js";
import { DEMO_WALLET_PROVIDER_PUBLIC_JWK } from "./demo-wallet-provider.js";
import type { AuthorizationCodeRepository } from "./domain/authorization/authorization-code.js";
import type { AuthorizationRequestRepository } from "./domain/authorization/authorization-request.js";
import type { IssuerDisplaySource } from "./domain/authorization/issuer-display.js";
import type { BrowserSessionRepository } from "./domain/session/browser-session.js";
import { createAuthorizationCodeStore } from "./store/authorization-code.store.js";
import { createAuthorizationRequestStore } from "./store/authorization-request.store.js";
import { createBrowserSessionStore } from "./store/browser-session.store.js";

/** What the auth server's routes need beyond the service context; tests replace any of it. */
export interface AuthServerDeps {
  /** The credential issuer's GrantService (its internal Connect API). */
  grantService: GrantServiceClient;
  accessTokenSigner: AccessTokenSigner;
  dpopNonces: DpopNonces;
  /** Wallet providers whose client attestations are believed. */
  clientAttestationTrust: ClientAttestationTrust;
  /** The credential issuer's metadata, for the consent page. */
  issuerDisplay: IssuerDisplaySource;
  authorizationRequests: AuthorizationRequestRepository;
  authorizationCodes: AuthorizationCodeRepository;
  browserSessions: BrowserSessionRepository;
  now: () => Date;
}

/** The trusted wallet providers: configured keys and roots, plus the demo provider unless disabled. */
export function clientAttestationTrustOf(config: AuthServerConfig): ClientAttestationTrust {
  const keys: JWK[] = [...(config.CLIENT_ATTESTATION_TRUSTED_KEYS ?? [])];
  if (config.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER) keys.push(DEMO_WALLET_PROVIDER_PUBLIC_JWK);
  return createClientAttestationTrust({ keys, x5cRoots: config.CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM ?? [] });
}

/** The production dependencies, from the service context and its configuration. */
export function createDependencies(context: ServiceContext<AuthServerConfig>): AuthServerDeps {
  const { config } = context;
  const now = () => new Date();
  return {
    grantService: context.rpcClient(issuanceV1.GrantService, {
      baseUrl: config.CREDENTIAL_ISSUER_INTERNAL_URL,
      audience: "credential-issuer",
    }),
    accessTokenSigner: createAccessTokenSigner({
      privateJwk: config.ACCESS_TOKEN_SIGNING_KEY,
      issuer: context.publicUrl,
      ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      now,
    }),
    dpopNonces: createDpopNonces({
      secret: config.DPOP_NONCE_SECRET,
      lifetimeSeconds: DEFAULT_DPOP_NONCE_LIFETIME_SECONDS,
      now,
    }),
    clientAttestationTrust: clientAttestationTrustOf(config),
    issuerDisplay: createIssuerDisplayClient({
      credentialIssuerUrl: config.CREDENTIAL_ISSUER_URL,
      timeoutMs: config.RPC_TIMEOUT_MS,
    }),
    authorizationRequests: createAuthorizationRequestStore(context.db),
    authorizationCodes: createAuthorizationCodeStore(context.db),
    browserSessions: createBrowserSessionStore(context.db),
    now,
  };
}
