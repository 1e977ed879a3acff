import { createHash, createPrivateKey, randomBytes, randomUUID, sign } from "node:crypto";
import {
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  p256PublicJwk,
} from "@attesto/protocol";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { decodeJwt, type JWK, SignJWT } from "jose";
import { type HttpResult, http, postForm, postJson } from "./http.js";
import type { PlatformUrls } from "./platform.js";

/**
 * Wallet- and relying-party-side steps against the real platform over HTTP, as a client would
 * drive them. Each step throws with the response when the platform does not answer as the
 * spec says, so a broken happy path is never mistaken for a refused hostile input.
 */

export const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export function expectStatus(result: HttpResult, status: number, what: string): HttpResult {
  if (result.status !== status)
    throw new Error(`${what}: expected ${status}, got ${result.status} ${result.text.slice(0, 400)}`);
  return result;
}

const jsonOf = <T>(result: HttpResult) => result.json as T;

export interface Tenant {
  tenant: string;
  uuid: string;
  apiKey: string;
  password: string;
}

export const PASSWORD = "Hostile-Passw0rd";

export const uniqueTenantName = (prefix = "t") => `${prefix}-${randomBytes(5).toString("hex")}`;

/** POST /v1/apply for a fresh tenant (issuer and verifier unless said otherwise). */
export async function applyTenant(
  urls: PlatformUrls,
  options: {
    tenant?: string;
    name?: string;
    isIssuer?: boolean;
    isVerifier?: boolean;
    headers?: Record<string, string>;
  } = {},
): Promise<Tenant> {
  const tenant = options.tenant ?? uniqueTenantName();
  const result = await postJson(
    `${urls.trust}/v1/apply`,
    {
      name: options.name ?? `Org ${tenant}`,
      email: `${tenant}@example.test`,
      password: PASSWORD,
      tenant,
      ...(options.isIssuer === undefined ? {} : { is_issuer: options.isIssuer }),
      ...(options.isVerifier === undefined ? {} : { is_verifier: options.isVerifier }),
    },
    options.headers,
  );
  expectStatus(result, 201, "POST /v1/apply");
  const body = jsonOf<{ uuid: string; api_key: string }>(result);
  return { tenant, uuid: body.uuid, apiKey: body.api_key, password: PASSWORD };
}

/** POST /v1/auth/login: an organization login token. */
export async function logIn(urls: PlatformUrls, tenant: Tenant): Promise<string> {
  const result = await postJson(`${urls.trust}/v1/auth/login`, { uuid: tenant.uuid, password: tenant.password });
  expectStatus(result, 200, "POST /v1/auth/login");
  return jsonOf<{ access_token: string }>(result).access_token;
}

/** POST /v1/did (login token): an organization did:ledger DID. */
export async function createOrganizationDid(urls: PlatformUrls, loginToken: string) {
  const result = await postJson(`${urls.trust}/v1/did`, {}, { authorization: `Bearer ${loginToken}` });
  expectStatus(result, 201, "POST /v1/did");
  return jsonOf<{ did: string; key_id: string; private_key: string }>(result);
}

/** Claims that conform to the seeded employee-badge credential type. */
export const BADGE_CLAIMS = {
  employee_id: "E-1001",
  given_name: "Ada",
  family_name: "Lovelace",
  employer: { name: "Analytical Engines Ltd" },
  valid_from: "2025-01-01",
};
export const BADGE_CONFIG = "employee-badge";

/** Claims that conform to the seeded university-diploma type. */
export const DIPLOMA_CLAIMS = {
  given_name: "Ada",
  family_name: "Lovelace",
  degree: { type: "master", name: "Master of Science in Mathematics" },
  institution: { name: "University of London" },
  awarded_on: "2024-06-30",
};

export interface HolderKey {
  privateJwk: JWK;
  publicJwk: JWK;
  alg: "ES256" | "EdDSA";
}

export function p256Key(): HolderKey {
  const privateJwk = generateP256Jwk() as JWK;
  return { privateJwk, publicJwk: p256PublicJwk(privateJwk as never) as JWK, alg: "ES256" };
}

export function ed25519Key(): HolderKey {
  const privateJwk = generateEd25519Jwk() as JWK;
  return { privateJwk, publicJwk: ed25519PublicJwk(privateJwk as never) as JWK, alg: "EdDSA" };
}

const tenantIssuers = new Map<string, { issuer_did: string; issuer_private_key: string }>();

/**
 * A did:key issuer for the DID signing path: `issuer_did` and `issuer_private_key` of an offer.
 * With a tenant, the same one for every offer of that tenant (as a tenant signs): the credential
 * issuer's JWT VC Issuer Metadata shows a key it has not listed before only once its cached copy
 * (about a minute) expires.
 */
export function didKeyIssuer(tenant?: string): { issuer_did: string; issuer_private_key: string } {
  const known = tenant === undefined ? undefined : tenantIssuers.get(tenant);
  if (known) return known;
  const jwk = generateEd25519Jwk();
  const issuer = { issuer_did: didKeyFromPublicJwk(jwk), issuer_private_key: jwk.d };
  if (tenant !== undefined) tenantIssuers.set(tenant, issuer);
  return issuer;
}

export interface CreatedOffer {
  offer_id: string;
  credential_offer_uri: string;
  deep_link: string;
  expires_at: string;
}

/** POST /v1/offers (pre-authorized, employee badge); DID path when `signing` is given, else X.509. */
export async function createOffer(
  urls: PlatformUrls,
  apiKey: string,
  options: { signing?: { issuer_did: string; issuer_private_key: string }; body?: Record<string, unknown> } = {},
): Promise<CreatedOffer> {
  const result = await postJson(
    `${urls.issuer}/v1/offers`,
    {
      credential: { config_id: BADGE_CONFIG, claims: BADGE_CLAIMS },
      flow: "pre-authorized",
      ...options.signing,
      ...options.body,
    },
    { "x-api-key": apiKey },
  );
  expectStatus(result, 201, "POST /v1/offers");
  return jsonOf<CreatedOffer>(result);
}

/** GET the offer document; returns it and its pre-authorized code. */
export async function fetchOffer(offer: CreatedOffer) {
  const result = expectStatus(await http(offer.credential_offer_uri), 200, "GET /v1/offers/:id");
  const document = jsonOf<{
    credential_issuer: string;
    credential_configuration_ids: string[];
    grants: Record<string, { "pre-authorized_code": string }>;
  }>(result);
  return { document, code: document.grants[PRE_AUTHORIZED_GRANT]!["pre-authorized_code"] };
}

export interface DpopOptions {
  key: HolderKey;
  htu: string;
  htm?: string;
  accessToken?: string;
  nonce?: string;
  jti?: string;
  /** Seconds added to the proof's iat (clock skew). */
  iatOffsetSeconds?: number;
}

/** A DPoP proof JWT (RFC 9449). */
export async function dpopProof(options: DpopOptions): Promise<string> {
  return new SignJWT({
    jti: options.jti ?? randomUUID(),
    htm: options.htm ?? "POST",
    htu: options.htu,
    iat: Math.floor(Date.now() / 1000) + (options.iatOffsetSeconds ?? 0),
    ...(options.accessToken === undefined
      ? {}
      : { ath: createHash("sha256").update(options.accessToken, "ascii").digest("base64url") }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  })
    .setProtectedHeader({ typ: "dpop+jwt", alg: options.key.alg, jwk: options.key.publicJwk })
    .sign(options.key.privateJwk);
}

/** Sends once without a nonce and, when asked (`use_dpop_nonce`), once more with the server's nonce. */
export async function withDpopNonce(
  send: (nonce: string | undefined) => Promise<HttpResult>,
  initialNonce?: string,
): Promise<HttpResult> {
  const first = await send(initialNonce);
  const nonce = first.headers.get("dpop-nonce");
  if ((first.json as { error?: string } | undefined)?.error === "use_dpop_nonce" && nonce) return send(nonce);
  return first;
}

export interface TokenResult {
  accessToken: string;
  tokenType: "DPoP" | "Bearer";
  /** The DPoP key the token is bound to, when it is. */
  dpopKey?: HolderKey;
  /** The last DPoP-Nonce the auth server sent. */
  dpopNonce?: string | null;
}

/** POST /v1/token with a pre-authorized code (DPoP-bound when `dpopKey` is given, nonce dance included). */
export async function redeemCode(
  urls: PlatformUrls,
  code: string,
  options: { dpopKey?: HolderKey; txCode?: string } = {},
): Promise<HttpResult> {
  const fields = {
    grant_type: PRE_AUTHORIZED_GRANT,
    "pre-authorized_code": code,
    ...(options.txCode === undefined ? {} : { tx_code: options.txCode }),
  };
  const key = options.dpopKey;
  if (!key) return postForm(`${urls.auth}/v1/token`, fields);
  return withDpopNonce(async (nonce) =>
    postForm(`${urls.auth}/v1/token`, fields, {
      dpop: await dpopProof({ key, htu: `${urls.auth}/v1/token`, ...(nonce === undefined ? {} : { nonce }) }),
    }),
  );
}

export async function getToken(urls: PlatformUrls, code: string, dpopKey?: HolderKey): Promise<TokenResult> {
  const result = expectStatus(await redeemCode(urls, code, { dpopKey }), 200, "POST /v1/token");
  const body = jsonOf<{ access_token: string; token_type: "DPoP" | "Bearer" }>(result);
  return {
    accessToken: body.access_token,
    tokenType: body.token_type,
    ...(dpopKey ? { dpopKey } : {}),
    dpopNonce: result.headers.get("dpop-nonce"),
  };
}

export async function fetchNonce(urls: PlatformUrls): Promise<string> {
  const result = expectStatus(await http(`${urls.issuer}/v1/nonce`, { method: "POST" }), 200, "POST /v1/nonce");
  return jsonOf<{ c_nonce: string }>(result).c_nonce;
}

/** An OID4VCI key proof (`openid4vci-proof+jwt`) for `audience` (the tenant's credential issuer identifier). */
export async function keyProof(options: {
  key: HolderKey;
  nonce: string;
  audience: string;
  iatOffsetSeconds?: number;
}): Promise<string> {
  return new SignJWT({
    aud: options.audience,
    iat: Math.floor(Date.now() / 1000) + (options.iatOffsetSeconds ?? 0),
    nonce: options.nonce,
  })
    .setProtectedHeader({ typ: "openid4vci-proof+jwt", alg: options.key.alg, jwk: options.key.publicJwk })
    .sign(options.key.privateJwk);
}

/** POST /credential with a prepared body; DPoP scheme and proof (with the nonce dance) when the token is bound. */
export async function postCredential(
  urls: PlatformUrls,
  token: TokenResult,
  body: unknown,
  options: { dpopNonce?: string; iatOffsetSeconds?: number; jti?: string } = {},
): Promise<HttpResult> {
  const send = async (nonce: string | undefined) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      authorization: `${token.dpopKey ? "DPoP" : "Bearer"} ${token.accessToken}`,
    };
    if (token.dpopKey) {
      headers.dpop = await dpopProof({
        key: token.dpopKey,
        htu: `${urls.issuer}/credential`,
        accessToken: token.accessToken,
        ...(nonce === undefined ? {} : { nonce }),
        ...(options.iatOffsetSeconds === undefined ? {} : { iatOffsetSeconds: options.iatOffsetSeconds }),
        ...(options.jti === undefined ? {} : { jti: options.jti }),
      });
    }
    return http(`${urls.issuer}/credential`, { method: "POST", headers, body: JSON.stringify(body) });
  };
  return token.dpopKey ? withDpopNonce(send, options.dpopNonce) : send(undefined);
}

export interface Issued {
  credential: string;
  holder: HolderKey;
  token: TokenResult;
  offer: CreatedOffer;
}

/**
 * The whole pre-authorized flow: offer, offer document, token, nonce, credential with proof.
 * DID path (did:key issuer, Bearer token) unless `x509` (X.509 + DPoP).
 */
export async function issueCredential(
  urls: PlatformUrls,
  tenant: Tenant,
  options: {
    x509?: boolean;
    holder?: HolderKey;
    /** The DID path's issuer DID and key (default: a fresh did:key). */
    signing?: { issuer_did: string; issuer_private_key: string };
  } = {},
): Promise<Issued> {
  const offer = await createOffer(
    urls,
    tenant.apiKey,
    options.x509 ? {} : { signing: options.signing ?? didKeyIssuer(tenant.tenant) },
  );
  const { code, document } = await fetchOffer(offer);
  const token = await getToken(urls, code, options.x509 ? p256Key() : undefined);
  const holder = options.holder ?? p256Key();
  const proof = await keyProof({ key: holder, nonce: await fetchNonce(urls), audience: document.credential_issuer });
  const result = await postCredential(urls, token, {
    credential_configuration_id: document.credential_configuration_ids[0],
    proofs: { jwt: [proof] },
  });
  expectStatus(result, 200, "POST /credential");
  const { credentials } = jsonOf<{ credentials: Array<{ credential: string }> }>(result);
  return { credential: credentials[0]!.credential, holder, token, offer };
}

/** A DCQL query for the employee badge. */
export const BADGE_DCQL = {
  credentials: [
    {
      id: "badge",
      format: "dc+sd-jwt",
      meta: { vct_values: [] as string[] },
      claims: [{ path: ["given_name"] }, { path: ["family_name"] }],
    },
  ],
};

export interface OpenedSession {
  session_id: string;
  request_uri: string;
  authorization_request: string;
  /** Claims of the signed request object. */
  request: { nonce: string; state: string; client_id: string; response_uri: string };
}

/** POST /v1/verifier/authorization-request, then GET the request object and decode it. */
export async function openSession(
  urls: PlatformUrls,
  apiKey: string,
  options: { vct?: string; body?: Record<string, unknown> } = {},
): Promise<OpenedSession> {
  const dcql = structuredClone(BADGE_DCQL);
  dcql.credentials[0]!.meta.vct_values = [options.vct ?? `${urls.schema}/schemas/employee-badge/v1`];
  const result = await postJson(
    `${urls.verifier}/v1/verifier/authorization-request`,
    {
      dcql_query: dcql,
      verifier_private_key: generateEd25519Jwk().d,
      verifier_client_id: `https://rp-${randomBytes(3).toString("hex")}.example`,
      ...options.body,
    },
    { "x-api-key": apiKey },
  );
  expectStatus(result, 201, "POST /v1/verifier/authorization-request");
  const created = jsonOf<Omit<OpenedSession, "request">>(result);
  const jwt = expectStatus(await http(created.request_uri), 200, "GET request object").text;
  return { ...created, request: decodeJwt(jwt) as unknown as OpenedSession["request"] };
}

const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash("sha256")
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  );

/** The holder's presentation: every disclosure, and a KB-JWT for the session's client_id and nonce. */
export async function presentation(
  issued: { credential: string; holder: HolderKey },
  session: OpenedSession,
): Promise<string> {
  const instance = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    kbSignAlg: issued.holder.alg,
    kbSigner: async (input: string) => {
      const key = createPrivateKey({ key: issued.holder.privateJwk as never, format: "jwk" });
      const signature =
        issued.holder.alg === "EdDSA"
          ? sign(null, Buffer.from(input), key)
          : sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
      return signature.toString("base64url");
    },
  });
  const claims = (await instance.getClaims(issued.credential)) as Record<string, unknown>;
  const frame = Object.fromEntries(Object.keys(claims).map((key) => [key, true]));
  return instance.present(issued.credential, frame as never, {
    kb: {
      payload: {
        aud: session.request.client_id,
        nonce: session.request.nonce,
        iat: Math.floor(Date.now() / 1000),
      } as never,
    },
  });
}

/** POST /v1/verifier/presentation (direct_post form). */
export function submitPresentation(
  urls: PlatformUrls,
  session: OpenedSession,
  vp: string,
  queryId = "badge",
): Promise<HttpResult> {
  return postForm(`${urls.verifier}/v1/verifier/presentation`, {
    state: session.request.state,
    vp_token: JSON.stringify({ [queryId]: [vp] }),
  });
}

export async function verificationResult(urls: PlatformUrls, apiKey: string, sessionId: string) {
  return http(`${urls.verifier}/v1/verifier/result/${encodeURIComponent(sessionId)}`, {
    headers: { "x-api-key": apiKey },
  });
}

/**
 * `issued` presented in full to the verifier of the tenant whose API key is `apiKey` (a new session,
 * direct_post), and the session's outcome: its status and each check as `<check> <status> <reason_code>`.
 */
export async function presentForVerification(urls: PlatformUrls, apiKey: string, issued: Issued) {
  const session = await openSession(urls, apiKey);
  expectStatus(
    await submitPresentation(urls, session, await presentation(issued, session)),
    200,
    "POST /v1/verifier/presentation",
  );
  const result = expectStatus(
    await verificationResult(urls, apiKey, session.session_id),
    200,
    "GET /v1/verifier/result/:id",
  );
  const body = jsonOf<{ status: string; check_results: Array<{ check: string; status: string; reason_code: string }> }>(
    result,
  );
  return { status: body.status, checks: body.check_results.map((c) => `${c.check} ${c.status} ${c.reason_code}`) };
}
