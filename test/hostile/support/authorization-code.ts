import { createDemoClientAttestationHeaders } from "@attesto/auth-server";
import { createPkce } from "@attesto/protocol";
import {
  BADGE_CONFIG,
  createOffer,
  dpopProof,
  expectStatus,
  fetchNonce,
  type HolderKey,
  keyProof,
  p256Key,
  postCredential,
  type Tenant,
  type TokenResult,
  withDpopNonce,
} from "./flows.js";
import { type HttpResult, http, postForm } from "./http.js";
import type { PlatformUrls } from "./platform.js";

export const WALLET_REDIRECT_URI = "https://wallet.example/cb";

/** Every value of one authorization-code run that is a secret of someone (for searching logs). */
export interface AuthorizationCodeRun {
  issuerState: string;
  requestUri: string;
  csrfToken: string;
  sessionCookie: string;
  code: string;
  codeVerifier: string;
  token: TokenResult;
  cNonce: string;
  credential: string;
  walletKey: HolderKey;
}

const hiddenField = (html: string, name: string) =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];

/** An authorization code the user approved, the values that led to it, and the wallet's token request for it. */
export interface ApprovedCode {
  issuerState: string;
  requestUri: string;
  csrfToken: string;
  sessionCookie: string;
  code: string;
  codeVerifier: string;
  walletKey: HolderKey;
  credentialIssuer: string;
  /** The code exchange (fresh client attestation and DPoP key each call, with the nonce dance). */
  exchange(dpopKey?: HolderKey): Promise<HttpResult>;
}

/**
 * The authorization-code flow up to the approved code, as a wallet and its user drive it, no
 * browser: an offer with `flow: authorization-code`, PAR (PKCE S256, demo wallet-provider client
 * attestation), the consent page (session cookie and CSRF token), Approve.
 */
export async function approvedAuthorizationCode(urls: PlatformUrls, tenant: Tenant): Promise<ApprovedCode> {
  const walletKey = p256Key();
  const clientId = `wallet-${walletKey.publicJwk.x?.slice(0, 8)}`;
  const attestation = () =>
    createDemoClientAttestationHeaders({ clientId, instancePrivateJwk: walletKey.privateJwk, audience: urls.auth });
  const pkce = createPkce();
  const offer = await createOffer(urls, tenant.apiKey, { body: { flow: "authorization-code" } });
  const document = expectStatus(await http(offer.credential_offer_uri), 200, "GET offer").json as {
    credential_issuer: string;
    grants: { authorization_code: { issuer_state: string } };
  };
  const issuerState = document.grants.authorization_code.issuer_state;
  const pushed = await postForm(
    `${urls.auth}/v1/par`,
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: WALLET_REDIRECT_URI,
      code_challenge: pkce.codeChallenge,
      code_challenge_method: "S256",
      scope: BADGE_CONFIG,
      issuer_state: issuerState,
      state: "wallet-state",
    },
    await attestation(),
  );
  expectStatus(pushed, 201, "POST /v1/par");
  const requestUri = (pushed.json as { request_uri: string }).request_uri;

  const page = expectStatus(
    await http(`${urls.auth}/v1/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`),
    200,
    "GET /v1/authorize",
  );
  const sessionCookie = (page.headers.get("set-cookie") ?? "").split(";")[0]!;
  const csrfToken = hiddenField(page.text, "csrf_token")!;
  const approved = await http(`${urls.auth}/v1/authorize/submit`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: sessionCookie },
    body: new URLSearchParams({
      request_id: hiddenField(page.text, "request_id")!,
      csrf_token: csrfToken,
      decision: "approve",
    }).toString(),
  });
  expectStatus(approved, 303, "POST /v1/authorize/submit");
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const fields = {
    grant_type: "authorization_code",
    code,
    redirect_uri: WALLET_REDIRECT_URI,
    code_verifier: pkce.codeVerifier,
    client_id: clientId,
  };
  return {
    issuerState,
    requestUri,
    csrfToken,
    sessionCookie,
    code,
    codeVerifier: pkce.codeVerifier,
    walletKey,
    credentialIssuer: document.credential_issuer,
    exchange(dpopKey = p256Key()) {
      return withDpopNonce(async (nonce) =>
        postForm(`${urls.auth}/v1/token`, fields, {
          ...(await attestation()),
          dpop: await dpopProof({
            key: dpopKey,
            htu: `${urls.auth}/v1/token`,
            ...(nonce === undefined ? {} : { nonce }),
          }),
        }),
      );
    },
  };
}

/**
 * The whole authorization-code flow: the approved code, its exchange, the nonce endpoint, a key
 * proof and the credential request.
 */
export async function runAuthorizationCodeFlow(urls: PlatformUrls, tenant: Tenant): Promise<AuthorizationCodeRun> {
  const approved = await approvedAuthorizationCode(urls, tenant);
  const dpopKey = p256Key();
  const exchanged = await approved.exchange(dpopKey);
  expectStatus(exchanged, 200, "POST /v1/token (authorization_code)");
  const token: TokenResult = {
    accessToken: (exchanged.json as { access_token: string }).access_token,
    tokenType: "DPoP",
    dpopKey,
    dpopNonce: exchanged.headers.get("dpop-nonce"),
  };
  const cNonce = await fetchNonce(urls);
  const proof = await keyProof({ key: approved.walletKey, nonce: cNonce, audience: approved.credentialIssuer });
  const issued = expectStatus(
    await postCredential(urls, token, { credential_configuration_id: BADGE_CONFIG, proofs: { jwt: [proof] } }),
    200,
    "POST /credential (authorization code)",
  );
  const credential = (issued.json as { credentials: Array<{ credential: string }> }).credentials[0]!.credential;
  return {
    issuerState: approved.issuerState,
    requestUri: approved.requestUri,
    csrfToken: approved.csrfToken,
    sessionCookie: approved.sessionCookie,
    code: approved.code,
    codeVerifier: approved.codeVerifier,
    token,
    cNonce,
    credential,
    walletKey: approved.walletKey,
  };
}
