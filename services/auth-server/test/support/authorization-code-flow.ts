import { randomUUID } from "node:crypto";
import { createPkce, generateP256Jwk, type Pkce } from "@attesto/protocol";
import type { App } from "@attesto/runtime/http";
import type { LightMyRequestResponse } from "fastify";
import type { JWK } from "jose";
import { expect } from "vitest";
import { createDemoClientAttestationHeaders } from "../../src/demo-wallet-provider.js";
import { AUTH_URL, FORM_HEADERS, form, type TestAuthServer } from "./test-auth-server.js";

export const REDIRECT_URI = "https://wallet.example/callback";
export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request-uri:";

/** A wallet instance: its client_id and the key its client attestation binds (`cnf.jwk`). */
export interface TestWallet {
  clientId: string;
  instanceKey: JWK;
}

export function createTestWallet(clientId = `wallet-${randomUUID()}`): TestWallet {
  return { clientId, instanceKey: generateP256Jwk() as JWK };
}

/** attest_jwt_client_auth headers from the demo wallet provider, for one request. */
export function attestationHeaders(
  wallet: TestWallet,
  options: { now?: Date; audience?: string; attestation?: string } = {},
): Promise<Record<string, string>> {
  return createDemoClientAttestationHeaders({
    clientId: wallet.clientId,
    instancePrivateJwk: wallet.instanceKey,
    audience: options.audience ?? AUTH_URL,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.attestation === undefined ? {} : { attestation: options.attestation }),
  });
}

/** POST /v1/par with a form body and the given headers. */
export function postPar(
  app: App,
  fields: Record<string, string | string[]>,
  headers: Record<string, string | string[]> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url: "/v1/par",
    headers: { ...FORM_HEADERS, ...headers },
    payload: form(fields),
  });
}

/** The fields of a valid pushed authorization request (minus those `omit` names). */
export function parFields(
  wallet: TestWallet,
  pkce: Pkce,
  overrides: Record<string, string | string[] | undefined> = {},
): Record<string, string | string[]> {
  const fields: Record<string, string | string[] | undefined> = {
    response_type: "code",
    client_id: wallet.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.codeChallenge,
    code_challenge_method: "S256",
    state: "wallet-state-1",
    ...overrides,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | string[]
  >;
}

/** A fresh authorization-code offer at the GrantService double; returns its issuer_state. */
export function offerAuthorizationCode(
  server: TestAuthServer,
  grant: { credentialConfigurationIds?: string[]; tenant?: string; dpopRequired?: boolean } = {},
  options: { expiresAt?: Date } = {},
): { issuerState: string; offerId: string } {
  const issuerState = randomUUID();
  const offerId = randomUUID();
  server.grants.addAuthorizationCodeOffer(issuerState, { offerId, ...grant }, options);
  return { issuerState, offerId };
}

/** PAR that must succeed; returns the request_uri. */
export async function pushAuthorizationRequest(
  server: TestAuthServer,
  wallet: TestWallet,
  pkce: Pkce,
  overrides: Record<string, string | string[] | undefined> = {},
  headers: Record<string, string | string[]> = {},
): Promise<string> {
  const response = await postPar(server.app, parFields(wallet, pkce, overrides), {
    ...(await attestationHeaders(wallet, { now: server.clock.now(), audience: server.context.publicUrl })),
    ...headers,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().request_uri;
}

/** The hidden fields of the consent form and the session cookie the page set. */
export interface ConsentForm {
  requestId: string;
  csrfToken: string;
  cookie: string;
  response: LightMyRequestResponse;
}

const hiddenField = (html: string, name: string) =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];

/** GET /v1/authorize. */
export function getAuthorize(
  app: App,
  query: Record<string, string>,
  cookie?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "GET",
    url: `/v1/authorize?${new URLSearchParams(query).toString()}`,
    headers: cookie === undefined ? {} : { cookie },
  });
}

/** GET /v1/authorize that must show the consent page; returns its form and the session cookie. */
export async function openConsent(
  app: App,
  clientId: string,
  requestUri: string,
  cookie?: string,
): Promise<ConsentForm> {
  const response = await getAuthorize(app, { client_id: clientId, request_uri: requestUri }, cookie);
  expect(response.statusCode, response.body).toBe(200);
  const setCookie = response.headers["set-cookie"];
  const sessionCookie = typeof setCookie === "string" ? setCookie.split(";")[0]! : cookie;
  return {
    requestId: hiddenField(response.body, "request_id")!,
    csrfToken: hiddenField(response.body, "csrf_token")!,
    cookie: sessionCookie!,
    response,
  };
}

/** POST /v1/authorize/submit. */
export function submitConsent(
  app: App,
  fields: Record<string, string>,
  cookie?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url: "/v1/authorize/submit",
    headers: { ...FORM_HEADERS, ...(cookie === undefined ? {} : { cookie }) },
    payload: form(fields),
  });
}

/** The query of a 303 redirect to the client. */
export function redirectParameters(response: LightMyRequestResponse): { base: string; query: Record<string, string> } {
  expect(response.statusCode, response.body).toBe(303);
  const location = new URL(response.headers.location as string);
  return { base: `${location.origin}${location.pathname}`, query: Object.fromEntries(location.searchParams) };
}

export interface IssuedCode {
  code: string;
  wallet: TestWallet;
  pkce: Pkce;
  issuerState: string;
  offerId: string;
}

/** PAR (attested), consent page, Approve: a fresh authorization code. */
export async function obtainAuthorizationCode(
  server: TestAuthServer,
  options: {
    wallet?: TestWallet;
    parOverrides?: Record<string, string | string[] | undefined>;
    parHeaders?: Record<string, string | string[]>;
    offer?: Parameters<typeof offerAuthorizationCode>[1];
  } = {},
): Promise<IssuedCode> {
  const wallet = options.wallet ?? createTestWallet();
  const pkce = createPkce();
  const { issuerState, offerId } = offerAuthorizationCode(server, options.offer);
  const requestUri = await pushAuthorizationRequest(
    server,
    wallet,
    pkce,
    { issuer_state: issuerState, ...options.parOverrides },
    options.parHeaders,
  );
  const consent = await openConsent(server.app, wallet.clientId, requestUri);
  const response = await submitConsent(
    server.app,
    { request_id: consent.requestId, csrf_token: consent.csrfToken, decision: "approve" },
    consent.cookie,
  );
  const { query } = redirectParameters(response);
  expect(query.code).toEqual(expect.any(String));
  return { code: query.code!, wallet, pkce, issuerState, offerId };
}
