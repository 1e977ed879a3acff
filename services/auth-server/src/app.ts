import type { App } from "@attesto/runtime/http";
import { createServiceApp, type ServiceContext } from "@attesto/runtime/service";
import { clientAttestationFailureCounter, dpopFailureCounter } from "./auth-server-metrics.js";
import type { AuthServerConfig } from "./config.js";
import { createDependencies } from "./dependencies.js";
import type { AuthorizationStepDeps } from "./domain/authorization/authorization-step-deps.js";
import type { ClientAuthenticationDeps } from "./domain/client-authentication.js";
import {
  authorizationServerUrls,
  createAuthorizationServerMetadata,
} from "./domain/create-authorization-server-metadata.js";
import type { AuthServerDependencies } from "./domain/ports.js";
import type { TokenDpopDeps } from "./domain/token/verify-token-dpop-proof.js";
import { registerAuthorizeRoute } from "./routes/authorize.route.js";
import { registerAuthorizeSubmitRoute } from "./routes/authorize-submit.route.js";
import { registerEndSessionRoute } from "./routes/end-session.route.js";
import { registerGetAuthorizationServerMetadataRoute } from "./routes/get-authorization-server-metadata.route.js";
import { registerGetJwksRoute } from "./routes/get-jwks.route.js";
import { registerParRoute } from "./routes/par.route.js";
import { registerTokenRoute } from "./routes/token.route.js";

/**
 * The auth-server public API: RFC 8414 metadata, its signing keys, PAR, the browser step
 * (authorize, submit, end_session) and the token endpoint.
 */
export async function buildApp(
  context: ServiceContext<AuthServerConfig>,
  deps: AuthServerDependencies = createDependencies(context),
): Promise<App> {
  const app = await createServiceApp(context);
  const { config } = context;
  const urls = authorizationServerUrls(context.publicUrl);
  const { grants } = deps;
  const dpop: TokenDpopDeps = {
    tokenEndpointUrl: urls.tokenEndpoint,
    nonces: deps.dpopNonces,
    nonceRequired: config.DPOP_NONCE_REQUIRED,
    replay: context.replayGuard,
    now: deps.now,
    onFailure: dpopFailureCounter(context.metrics),
  };
  const clientAuthentication: ClientAuthenticationDeps = {
    trust: deps.clientAttestationTrust,
    issuer: urls.issuer,
    replay: context.replayGuard,
    now: deps.now,
    onFailure: clientAttestationFailureCounter(context.metrics),
  };
  const authorizationStep: AuthorizationStepDeps = {
    requests: deps.authorizationRequests,
    codes: deps.authorizationCodes,
    sessions: deps.browserSessions,
    grants,
    issuerDisplay: deps.issuerDisplay,
    issuer: urls.issuer,
    consentTtlSeconds: config.AUTHORIZATION_CONSENT_TTL_SECONDS,
    now: deps.now,
  };
  const cookie = { secure: context.publicUrl.startsWith("https:") };
  const trustsNoWalletProvider =
    deps.clientAttestationTrust.keys.length === 0 && deps.clientAttestationTrust.x5cRoots.length === 0;
  if (config.CLIENT_ATTESTATION_REQUIRED_AUTH_CODE && trustsNoWalletProvider) {
    app.log.warn(
      "PAR requires a client attestation but no wallet provider is trusted: every PAR is refused until CLIENT_ATTESTATION_TRUSTED_KEYS or CLIENT_ATTESTATION_TRUSTED_X5C_ROOTS_PEM is set (the pre-authorized code flow is unaffected)",
    );
  }
  if (config.CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER) {
    app.log.warn(
      "client attestations of the DEMO wallet provider are trusted (its private key is public, so anyone can pass PAR as any client): never set CLIENT_ATTESTATION_TRUST_DEMO_PROVIDER=true outside local development",
    );
  }

  registerGetAuthorizationServerMetadataRoute(app, createAuthorizationServerMetadata(urls));
  registerGetJwksRoute(app, deps.accessTokenSigner.jwks);
  registerParRoute(app, {
    grants,
    requests: deps.authorizationRequests,
    clientAuthentication,
    clientAttestationRequired: config.CLIENT_ATTESTATION_REQUIRED_AUTH_CODE,
    dpop,
    parEndpointUrl: urls.parEndpoint,
    credentialIssuerUrl: config.CREDENTIAL_ISSUER_URL,
    now: deps.now,
  });
  registerAuthorizeRoute(app, authorizationStep, cookie);
  registerAuthorizeSubmitRoute(app, authorizationStep);
  registerEndSessionRoute(
    app,
    { sessions: deps.browserSessions, postLogoutRedirectUris: config.POST_LOGOUT_REDIRECT_URIS },
    cookie,
  );
  registerTokenRoute(app, {
    grants,
    unanswered: deps.unansweredRedemptions,
    now: deps.now,
    signer: deps.accessTokenSigner,
    credentialIssuerUrl: config.CREDENTIAL_ISSUER_URL,
    dpop,
    authorizationCode: {
      codes: deps.authorizationCodes,
      clientAuthentication,
      clientAttestationRequiredAtToken: config.CLIENT_ATTESTATION_REQUIRED_AT_TOKEN,
      issuers: grants,
      now: deps.now,
    },
  });
  return app;
}
