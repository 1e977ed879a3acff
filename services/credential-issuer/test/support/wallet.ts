import { createHash, randomUUID } from "node:crypto";
import {
  didKeyFromPublicJwk,
  ed25519PublicJwk,
  generateEd25519Jwk,
  generateP256Jwk,
  p256PublicJwk,
} from "@attesto/protocol";
import { calculateJwkThumbprint, type JWK, SignJWT } from "jose";
import { diplomaClaims } from "./credential-type.fixture.js";
import { API_KEYS } from "./doubles.js";
import { ISSUER_ID, ISSUER_URL, type TestIssuer } from "./test-issuer.js";

/** A holder key pair: the private JWK and its public part. */
export interface HolderKey {
  privateJwk: JWK;
  publicJwk: JWK;
  alg: "ES256" | "EdDSA";
}

export function p256Key(): HolderKey {
  const privateJwk = generateP256Jwk();
  return { privateJwk, publicJwk: p256PublicJwk(privateJwk), alg: "ES256" };
}

export function ed25519Key(): HolderKey {
  const privateJwk = generateEd25519Jwk();
  return { privateJwk, publicJwk: ed25519PublicJwk(privateJwk), alg: "EdDSA" };
}

export const didKeyOf = (key: HolderKey) => didKeyFromPublicJwk(key.publicJwk as never);
export const thumbprintOf = (key: HolderKey) => calculateJwkThumbprint(key.publicJwk, "sha256");

/** POST /v1/offers with the acme API key (X.509 path unless the body says otherwise). */
export async function createOffer(issuer: TestIssuer, body: Record<string, unknown> = {}, apiKey = API_KEYS.acme) {
  return issuer.app.inject({
    method: "POST",
    url: "/v1/offers",
    headers: { "x-api-key": apiKey },
    payload: {
      credential: { config_id: "university-diploma", claims: diplomaClaims },
      flow: "pre-authorized",
      ...body,
    },
  });
}

/** An offer created, its document fetched and its pre-authorized code redeemed: the token's grant. */
export async function redeemedOffer(issuer: TestIssuer, body: Record<string, unknown> = {}) {
  const created = await createOffer(issuer, body);
  if (created.statusCode !== 201) throw new Error(`offer creation failed: ${created.body}`);
  const offerId = created.json().offer_id as string;
  const document = (await issuer.app.inject({ method: "GET", url: `/v1/offers/${offerId}` })).json();
  const code = document.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"];
  const { grant } = await issuer.grants.redeemPreAuthorizedCode({ preAuthorizedCode: code });
  return { offerId, grant: grant!, document };
}

export async function fetchNonce(issuer: TestIssuer): Promise<string> {
  return (await issuer.app.inject({ method: "POST", url: "/v1/nonce" })).json().c_nonce;
}

/** The offer body fields of the DID path: the credential is signed by the did:key of `issuerKey`. */
export const didIssuer = (issuerKey: HolderKey) => ({
  issuer_did: didKeyOf(issuerKey),
  issuer_private_key: issuerKey.privateJwk.d,
});

/** A credential request for the diploma: one key proof per key, all on one fresh c_nonce, on the issuer's clock. */
export async function diplomaRequest(issuer: TestIssuer, keys: HolderKey[]) {
  const nonce = await fetchNonce(issuer);
  return {
    credential_configuration_id: "university-diploma",
    proofs: { jwt: await Promise.all(keys.map((key) => keyProof({ key, nonce, now: issuer.clock.now }))) },
  };
}

export interface ProofInput {
  nonce: string;
  key: HolderKey;
  /** Name the key by this kid instead of embedding the jwk. */
  kid?: string;
  header?: Record<string, unknown>;
  payload?: Record<string, unknown>;
  now?: Date;
}

/** An OID4VCI key proof JWT (`openid4vci-proof+jwt`). */
export async function keyProof(input: ProofInput): Promise<string> {
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const keyHeader = input.kid === undefined ? { jwk: input.key.publicJwk } : { kid: input.kid };
  return new SignJWT({ aud: ISSUER_ID, iat, nonce: input.nonce, iss: "test-wallet", ...input.payload })
    .setProtectedHeader({ typ: "openid4vci-proof+jwt", alg: input.key.alg, ...keyHeader, ...input.header } as never)
    .sign(input.key.privateJwk as never);
}

export interface DpopInput {
  key: HolderKey;
  accessToken?: string;
  nonce?: string;
  htu?: string;
  htm?: string;
  jti?: string;
  iat?: number;
  /** The clock the issuer runs on: `iat` defaults to it. */
  now?: Date;
  payload?: Record<string, unknown>;
}

/** A DPoP proof for POST /credential. */
export async function dpopProof(input: DpopInput): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: input.jti ?? randomUUID(),
    htm: input.htm ?? "POST",
    htu: input.htu ?? `${ISSUER_URL}/credential`,
    iat: input.iat ?? Math.floor((input.now ?? new Date()).getTime() / 1000),
    ...(input.accessToken === undefined
      ? {}
      : { ath: createHash("sha256").update(input.accessToken).digest("base64url") }),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    ...input.payload,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ typ: "dpop+jwt", alg: input.key.alg, jwk: input.key.publicJwk } as never)
    .sign(input.key.privateJwk as never);
}

/** POST /credential with a token in the given scheme, an optional DPoP header and a JSON body. */
export async function postCredential(
  issuer: TestIssuer,
  input: {
    token?: string;
    scheme?: string;
    dpop?: string | string[];
    body?: unknown;
    headers?: Record<string, string>;
  },
) {
  const headers: Record<string, string | string[]> = { ...input.headers };
  if (input.token !== undefined) headers.authorization = `${input.scheme ?? "Bearer"} ${input.token}`;
  if (input.dpop !== undefined) headers.dpop = input.dpop;
  return issuer.app.inject({
    method: "POST",
    url: "/credential",
    headers,
    ...(input.body === undefined ? {} : { payload: input.body as never }),
  });
}

/**
 * The DPoP dance at the credential endpoint as a wallet does it: a proof without nonce, the 401
 * (or, with CREDENTIAL_DPOP_NONCE_STATUS=400, 400) use_dpop_nonce with DPoP-Nonce, then the proof
 * with that nonce.
 */
export async function postCredentialWithDpop(
  issuer: TestIssuer,
  input: { token: string; key: HolderKey; body: unknown },
) {
  const first = await postCredential(issuer, {
    token: input.token,
    scheme: "DPoP",
    dpop: await dpopProof({ key: input.key, accessToken: input.token, now: issuer.clock.now }),
    body: input.body,
  });
  if (first.statusCode < 400 || first.json().error !== "use_dpop_nonce") return first;
  const nonce = first.headers["dpop-nonce"] as string;
  return postCredential(issuer, {
    token: input.token,
    scheme: "DPoP",
    dpop: await dpopProof({ key: input.key, accessToken: input.token, nonce, now: issuer.clock.now }),
    body: input.body,
  });
}
