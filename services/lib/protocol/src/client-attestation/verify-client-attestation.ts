import { decodeJwt, decodeProtectedHeader, type JWK } from "jose";
import { PRIVATE_JWK_MEMBERS } from "../dpop/z-dpop.js";
import { SdJwtVerificationError } from "../sd-jwt-verify/sd-jwt-verification-error.js";
import { keyMatchesAlgorithm, publicMembersOf, verifyJwsSignature } from "../sd-jwt-verify/verify-jws-signature.js";
import { verifyX5cChain } from "../sd-jwt-verify/verify-x5c-chain.js";
import { attestationFailure, type ClientAttestationFailureReason } from "./client-attestation-error.js";
import { type ClientAttestationTrust, jwkThumbprint } from "./create-client-attestation-trust.js";
import {
  type AttestationJwk,
  CLIENT_ATTESTATION_HEADER,
  CLIENT_ATTESTATION_POP_HEADER,
  type ClientAttestationJwtHeader,
  type ClientAttestationJwtPayload,
  type ClientAttestationPopJwtPayload,
  zClientAttestationJwtHeader,
  zClientAttestationJwtPayload,
  zClientAttestationPopJwtHeader,
  zClientAttestationPopJwtPayload,
} from "./z-client-attestation.js";

/** Clock skew tolerated for `iat` / `nbf` in the future. */
export const CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS = 60;
/** A PoP may be at most this old (`iat`), and may not be valid for longer than this (`exp`). */
export const CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS = 300;
/** Replay-store namespace of PoP `jti`s; values are `<cnf jkt>:<jti>`. */
export const CLIENT_ATTESTATION_POP_JTI_NAMESPACE = "client-attestation-pop-jti";

/** An atomic single-use store (the runtime's PostgreSQL `ReplayGuard` fits). */
export interface ClientAttestationReplayStore {
  /** Records `value` until `expiresAt`; false when it is already recorded (a replay). */
  consume(namespace: string, value: string, expiresAt: Date): Promise<boolean>;
}

export interface VerifyClientAttestationOptions {
  /** The `OAuth-Client-Attestation` request header(s), as Node gives them. */
  attestationHeader: string | string[] | undefined;
  /** The `OAuth-Client-Attestation-PoP` request header(s). */
  popHeader: string | string[] | undefined;
  trust: ClientAttestationTrust;
  /** The authorization server's issuer identifier: the PoP's `aud`. */
  authorizationServer: string;
  /** The request's `client_id`, when it carries one: it must equal the attestation's `sub`. */
  clientId?: string;
  replay: ClientAttestationReplayStore;
  now?: Date;
}

export interface VerifiedClientAttestation {
  /** The attested client_id (the attestation's `sub`). */
  clientId: string;
  /** The wallet provider (`iss`), when the attestation names one. */
  walletProvider?: string;
  /** The wallet instance key (`cnf.jwk`) and its RFC 7638 thumbprint. */
  instanceJwk: JWK;
  instanceJkt: string;
  /** When the attestation expires. */
  expiresAt: Date;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

const fail = (reason: ClientAttestationFailureReason, message: string, cause?: unknown): never => {
  throw attestationFailure(reason, message, cause);
};

/** Exactly one header holding one compact JWS (Node joins repeated headers with ", "). */
function singleJwtOf(header: string | string[] | undefined, name: string, what: string): string {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  if (values.length > 1) fail("multiple", `Exactly one ${name} header is allowed`);
  const value = values[0]?.trim() ?? "";
  if (value.includes(",")) fail("multiple", `Exactly one ${name} header is allowed`);
  if (!COMPACT_JWS.test(value)) fail("malformed", `${what} is not a compact JWT`);
  return value;
}

function isPresent(header: string | string[] | undefined): boolean {
  return header !== undefined && (Array.isArray(header) ? header.length > 0 : header.trim() !== "");
}

function firstIssue(error: { issues: Array<{ message: string; path: PropertyKey[] }> }): string {
  const issue = error.issues[0];
  return issue?.message ?? "is invalid";
}

function headerOf<T>(compact: string, schema: { safeParse(value: unknown): SafeParse<T> }, what: string): T {
  let raw: unknown;
  try {
    raw = decodeProtectedHeader(compact);
  } catch (error) {
    return fail("malformed", `${what} header is not valid base64url JSON`, error);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    return fail(field === "typ" ? "typ" : field === "alg" ? "alg" : "malformed", `${what} ${firstIssue(parsed.error)}`);
  }
  return parsed.data;
}

type SafeParse<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: Array<{ message: string; path: PropertyKey[] }> } };

/** The payload of a JWT whose signature already holds. */
function payloadOf<T>(compact: string, schema: { safeParse(value: unknown): SafeParse<T> }, what: string): T {
  let raw: unknown;
  try {
    raw = decodeJwt(compact);
  } catch (error) {
    return fail("malformed", `${what} payload is not a JSON object`, error);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    return fail(field === "cnf" ? "cnf" : "claims", `${what} ${firstIssue(parsed.error)}`);
  }
  return parsed.data;
}

/** The attestation is signed by a trusted wallet provider: an x5c chain to a root, or a trusted key. */
async function verifyProviderSignature(
  compact: string,
  header: ClientAttestationJwtHeader,
  trust: ClientAttestationTrust,
  now: Date,
): Promise<void> {
  if (header.x5c !== undefined) {
    if (trust.x5cRoots.length === 0) fail("untrusted", "client attestation x5c chain does not lead to a trusted root");
    let leafJwk: Record<string, unknown>;
    try {
      ({ leafPublicJwk: leafJwk } = await verifyX5cChain(header.x5c, [...trust.x5cRoots], now));
    } catch (error) {
      if (!(error instanceof SdJwtVerificationError)) throw error;
      const reason = error.code === "certificate_expired" ? "expired" : "untrusted";
      return fail(reason, `client attestation ${error.message.replace(/^the /, "")}`, error);
    }
    if (!keyMatchesAlgorithm(leafJwk, header.alg)) {
      fail("alg", `client attestation alg ${header.alg} does not fit the x5c leaf certificate key`);
    }
    if (!(await verifyJwsSignature(compact, leafJwk))) fail("signature", "client attestation signature is invalid");
    return;
  }
  const fitting = trust.keys.filter((key) => keyMatchesAlgorithm(key.jwk, header.alg));
  let candidates = fitting;
  let named = false;
  if (header.kid !== undefined) {
    candidates = fitting.filter((key) => key.jwk.kid === header.kid);
    named = true;
  } else if (header.jwk !== undefined) {
    const thumbprint = jwkThumbprint(publicMembersOf(header.jwk as Record<string, unknown>));
    candidates = fitting.filter((key) => key.thumbprint === thumbprint);
    named = true;
  }
  for (const candidate of candidates) {
    if (await verifyJwsSignature(compact, candidate.jwk as Record<string, unknown>)) return;
  }
  if (named && candidates.length > 0) fail("signature", "client attestation signature is invalid");
  fail("untrusted", "client attestation is not signed by a trusted wallet provider");
}

/** exp, nbf and iat of the attestation. */
function checkAttestationTimes(payload: ClientAttestationJwtPayload, nowSeconds: number): void {
  if (payload.exp <= nowSeconds) fail("expired", "client attestation has expired");
  if (payload.nbf !== undefined && payload.nbf > nowSeconds + CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS) {
    fail("not_yet_valid", "client attestation is not yet valid (nbf is in the future)");
  }
  if (payload.iat !== undefined && payload.iat > nowSeconds + CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS) {
    fail("not_yet_valid", "client attestation iat is in the future");
  }
}

/** `cnf.jwk`: a public EC P-256 or OKP Ed25519 key, the one the PoP must be signed with. */
function instanceKeyOf(jwk: AttestationJwk): JWK {
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) {
    fail("cnf", "client attestation cnf.jwk must be a public key (it contains private key material)");
  }
  const fitsEc = jwk.kty === "EC" && jwk.crv === "P-256" && !!jwk.x && !!jwk.y;
  const fitsOkp = jwk.kty === "OKP" && jwk.crv === "Ed25519" && !!jwk.x;
  if (!fitsEc && !fitsOkp) fail("cnf", "client attestation cnf.jwk must be an EC P-256 or OKP Ed25519 public key");
  return publicMembersOf(jwk as Record<string, unknown>);
}

function checkPopClaims(
  payload: ClientAttestationPopJwtPayload,
  attestation: ClientAttestationJwtPayload,
  authorizationServer: string,
  nowSeconds: number,
): void {
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(authorizationServer)) {
    fail("aud", `client attestation PoP aud must be the authorization server issuer ${authorizationServer}`);
  }
  if (payload.iss !== undefined && payload.iss !== attestation.sub) {
    fail("iss", "client attestation PoP iss must equal the client attestation sub (the client_id)");
  }
  if (payload.iat === undefined && payload.exp === undefined) fail("iat", "client attestation PoP must carry iat");
  if (payload.iat !== undefined) {
    if (payload.iat > nowSeconds + CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS) {
      fail(
        "iat",
        `client attestation PoP iat is in the future (more than ${CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS} s ahead)`,
      );
    }
    if (payload.iat < nowSeconds - CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS) {
      fail(
        "iat",
        `client attestation PoP is too old (iat more than ${CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS} s in the past)`,
      );
    }
  }
  if (payload.exp !== undefined) {
    if (payload.exp <= nowSeconds) fail("expired", "client attestation PoP has expired");
    const latest = nowSeconds + CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS + CLIENT_ATTESTATION_MAX_FUTURE_SKEW_SECONDS;
    if (payload.exp > latest) {
      fail(
        "iat",
        `client attestation PoP exp is too far ahead (more than ${CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS} s)`,
      );
    }
  }
}

/**
 * Verifies attestation-based client authentication (`attest_jwt_client_auth`): the
 * `OAuth-Client-Attestation` JWT (typ `oauth-client-attestation+jwt`, signed by a trusted wallet
 * provider, unexpired, with `sub` and `cnf.jwk`) and the `OAuth-Client-Attestation-PoP` JWT (typ
 * `oauth-client-attestation-pop+jwt`, signed by `cnf.jwk`, `aud` = the authorization server,
 * `iss` = `sub` when present, fresh `iat`/`exp`, single-use `jti`). A `challenge` is not required.
 * The request's `client_id` must equal `sub`. The `jti` is consumed last, once everything holds.
 *
 * @throws ClientAttestationError (answer 401 `invalid_client` with its message)
 */
export async function verifyClientAttestation(
  options: VerifyClientAttestationOptions,
): Promise<VerifiedClientAttestation> {
  const now = options.now ?? new Date();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const hasAttestation = isPresent(options.attestationHeader);
  const hasPop = isPresent(options.popHeader);
  if (!hasAttestation && !hasPop) {
    fail("missing", `${CLIENT_ATTESTATION_HEADER} and ${CLIENT_ATTESTATION_POP_HEADER} headers are required`);
  }
  if (!hasAttestation) fail("missing", `${CLIENT_ATTESTATION_HEADER} header is required`);
  if (!hasPop) fail("missing", `${CLIENT_ATTESTATION_POP_HEADER} header is required`);
  const attestationJwt = singleJwtOf(options.attestationHeader, CLIENT_ATTESTATION_HEADER, "client attestation");
  const popJwt = singleJwtOf(options.popHeader, CLIENT_ATTESTATION_POP_HEADER, "client attestation PoP");

  const header = headerOf(attestationJwt, zClientAttestationJwtHeader, "client attestation");
  await verifyProviderSignature(attestationJwt, header, options.trust, now);
  const attestation = payloadOf(attestationJwt, zClientAttestationJwtPayload, "client attestation");
  checkAttestationTimes(attestation, nowSeconds);
  const instanceJwk = instanceKeyOf(attestation.cnf.jwk);
  if (options.clientId !== undefined && options.clientId !== attestation.sub) {
    fail("client_id", "client_id does not match the client attestation sub");
  }

  const popHeader = headerOf(popJwt, zClientAttestationPopJwtHeader, "client attestation PoP");
  if (!keyMatchesAlgorithm(instanceJwk, popHeader.alg)) {
    fail("alg", `client attestation PoP alg ${popHeader.alg} does not fit the attestation's cnf key`);
  }
  if (!(await verifyJwsSignature(popJwt, instanceJwk as Record<string, unknown>))) {
    fail("signature", "client attestation PoP signature does not verify with the attestation's cnf key");
  }
  const pop = payloadOf(popJwt, zClientAttestationPopJwtPayload, "client attestation PoP");
  checkPopClaims(pop, attestation, options.authorizationServer, nowSeconds);

  const instanceJkt = jwkThumbprint(instanceJwk);
  const until = Math.max(nowSeconds, pop.iat ?? nowSeconds, pop.exp ?? 0) + CLIENT_ATTESTATION_POP_MAX_AGE_SECONDS;
  const fresh = await options.replay.consume(
    CLIENT_ATTESTATION_POP_JTI_NAMESPACE,
    `${instanceJkt}:${pop.jti}`,
    new Date(until * 1000),
  );
  if (!fresh) fail("replay", "client attestation PoP jti has already been used");

  return {
    clientId: attestation.sub,
    ...(attestation.iss === undefined ? {} : { walletProvider: attestation.iss }),
    instanceJwk,
    instanceJkt,
    expiresAt: new Date(attestation.exp * 1000),
  };
}
