import type { KeyObject } from "node:crypto";
import { decodeProtectedHeader } from "jose";
import { verifyCompactJws } from "../keys/jws.js";
import { publicKeyCache } from "../keys/public-key-cache.js";
import { htuMatches } from "./compare-htu.js";
import { computeDpopAth } from "./compute-dpop-ath.js";
import type { DpopNonces } from "./create-dpop-nonces.js";
import { DpopProofError, invalidDpopProof } from "./dpop-proof-error.js";
import {
  type DpopJwk,
  type DpopJwtHeader,
  type DpopJwtPayload,
  PRIVATE_JWK_MEMBERS,
  zDpopJwtHeader,
  zDpopJwtPayload,
} from "./z-dpop.js";

/** a proof's `iat` may be at most 300 s old ... */
export const DPOP_PROOF_MAX_AGE_SECONDS = 300;
/** ... and at most 60 s in the future (clock skew). */
export const DPOP_PROOF_MAX_FUTURE_SKEW_SECONDS = 60;
/** a `jti` is remembered (refused on reuse) for 300 s. */
export const DPOP_JTI_LIFETIME_SECONDS = 300;
/** Replay-store namespace of proof `jti`s; values are `<jkt>:<jti>`. */
export const DPOP_JTI_NAMESPACE = "dpop-jti";

/** An atomic single-use store (the runtime's PostgreSQL `ReplayGuard` fits). */
export interface DpopReplayStore {
  /** Records `value` until `expiresAt`; false when it is already recorded (a replay). */
  consume(namespace: string, value: string, expiresAt: Date): Promise<boolean>;
}

export interface VerifyDpopProofOptions {
  /** The request's `DPoP` header(s) as Node gives them. */
  header: string | string[] | undefined;
  /** HTTP method of the request, e.g. "POST". */
  method: string;
  /** PUBLIC URL of the endpoint (from configuration, never the bind address); query and fragment are ignored. */
  url: string;
  /** The access token presented with the proof (resource requests): `ath` is then required and checked. */
  accessToken?: string;
  /** The `cnf.jkt` the access token is bound to: the proof key must have this thumbprint. */
  expectedJkt?: string;
  /** When given, the proof must carry a valid, unexpired server nonce (else `use_dpop_nonce`). */
  nonces?: Pick<DpopNonces, "verify">;
  replay: DpopReplayStore;
  now?: Date;
}

export interface VerifiedDpopProof {
  /** RFC 7638 SHA-256 thumbprint of the proof key (the token's `cnf.jkt`). */
  jkt: string;
  /** The proof's public key. */
  jwk: DpopJwk;
  jti: string;
}

/** Three base64url segments; an empty signature (alg none) is refused by the alg check, with a precise message. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Exactly one `DPoP` header holding one compact JWS (Node joins repeated headers with ", "). */
function singleProofOf(header: VerifyDpopProofOptions["header"]): string {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  if (values.length > 1) throw invalidDpopProof("multiple", "Exactly one DPoP header is allowed");
  const value = values[0]?.trim();
  if (!value) throw invalidDpopProof("missing", "DPoP proof is missing");
  if (value.includes(",")) throw invalidDpopProof("multiple", "Exactly one DPoP header is allowed");
  if (!COMPACT_JWS.test(value)) throw invalidDpopProof("malformed", "DPoP proof is not a compact JWS");
  return value;
}

function firstIssue(error: { issues: Array<{ message: string }> }): string {
  return error.issues[0]?.message ?? "is invalid";
}

/** typ, alg and a public `jwk` whose key type fits the algorithm. */
function parseProofHeader(compact: string): DpopJwtHeader & { jwk: DpopJwk } {
  let raw: unknown;
  try {
    raw = decodeProtectedHeader(compact);
  } catch (error) {
    throw invalidDpopProof("malformed", "DPoP proof header is not valid base64url JSON", error);
  }
  const parsed = zDpopJwtHeader.safeParse(raw);
  if (!parsed.success) {
    const reason =
      parsed.error.issues[0]?.path[0] === "typ" ? "typ" : parsed.error.issues[0]?.path[0] === "alg" ? "alg" : "jwk";
    throw invalidDpopProof(reason, `DPoP proof header ${firstIssue(parsed.error)}`);
  }
  const { jwk, alg } = parsed.data;
  if (!jwk) throw invalidDpopProof("jwk", "DPoP proof header must carry the public key as jwk");
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) {
    throw invalidDpopProof("jwk", "DPoP proof jwk must be a public key (it contains private key material)");
  }
  const fits = alg === "ES256" ? jwk.kty === "EC" && jwk.crv === "P-256" : jwk.kty === "OKP" && jwk.crv === "Ed25519";
  if (!fits) {
    const expected = alg === "ES256" ? "an EC P-256" : "an OKP Ed25519";
    throw invalidDpopProof("jwk", `DPoP proof jwk must be ${expected} key for alg ${alg}`);
  }
  return { ...parsed.data, jwk };
}

/** The proof's payload claims, decoded without any signature check (cheap checks run first). */
function decodeProofPayload(compact: string): DpopJwtPayload {
  let raw: unknown;
  try {
    const encoded = compact.slice(compact.indexOf(".") + 1, compact.lastIndexOf("."));
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64url")));
  } catch (error) {
    throw invalidDpopProof("malformed", "DPoP proof payload is not JSON", error);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalidDpopProof("malformed", "DPoP proof payload is not a JSON object");
  }
  const parsed = zDpopJwtPayload.safeParse(raw);
  if (!parsed.success) throw invalidDpopProof("claims", `DPoP proof ${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** The signature by the header's `jwk` (imported once per distinct key, see public-key-cache.ts). */
function verifyProofSignature(compact: string, header: DpopJwtHeader & { jwk: DpopJwk }): void {
  let key: KeyObject;
  try {
    key = publicKeyCache.importKey(header.jwk);
  } catch (error) {
    throw invalidDpopProof("jwk", `DPoP proof jwk is not a valid ${header.alg} public key`, error);
  }
  try {
    verifyCompactJws(compact, key, [header.alg]);
  } catch (error) {
    throw invalidDpopProof("signature", "DPoP proof signature is invalid", error);
  }
}

function checkRequestBinding(payload: DpopJwtPayload, options: VerifyDpopProofOptions): void {
  if (payload.htm !== options.method) {
    throw invalidDpopProof("htm", `DPoP proof htm does not match the request method ${options.method}`);
  }
  if (!htuMatches(payload.htu, options.url)) {
    throw invalidDpopProof("htu", "DPoP proof htu does not match the request URL");
  }
}

function checkIssuedAt(payload: DpopJwtPayload, nowSeconds: number): void {
  if (nowSeconds - payload.iat > DPOP_PROOF_MAX_AGE_SECONDS) {
    throw invalidDpopProof("iat", `DPoP proof is too old (iat more than ${DPOP_PROOF_MAX_AGE_SECONDS} s in the past)`);
  }
  if (payload.iat - nowSeconds > DPOP_PROOF_MAX_FUTURE_SKEW_SECONDS) {
    throw invalidDpopProof(
      "iat",
      `DPoP proof iat is in the future (more than ${DPOP_PROOF_MAX_FUTURE_SKEW_SECONDS} s ahead)`,
    );
  }
}

function checkAccessTokenHash(payload: DpopJwtPayload, accessToken: string | undefined): void {
  if (accessToken === undefined) return;
  if (payload.ath === undefined) throw invalidDpopProof("ath", "DPoP proof ath is required with an access token");
  if (payload.ath !== computeDpopAth(accessToken)) {
    throw invalidDpopProof("ath", "DPoP proof ath does not match the access token");
  }
}

function checkKeyBinding(jkt: string, expectedJkt: string | undefined): void {
  if (expectedJkt !== undefined && jkt !== expectedJkt) {
    throw invalidDpopProof("jkt", "DPoP proof key does not match the key the access token is bound to");
  }
}

function checkNonce(payload: DpopJwtPayload, nonces: VerifyDpopProofOptions["nonces"]): void {
  if (!nonces) return;
  if (payload.nonce === undefined) {
    throw new DpopProofError("use_dpop_nonce", "nonce", "DPoP proof must carry the server-provided nonce");
  }
  if (!nonces.verify(payload.nonce)) {
    throw new DpopProofError("use_dpop_nonce", "nonce", "DPoP nonce is invalid or expired");
  }
}

/** Last, because it records state: a proof refused for any other reason leaves its `jti` unused. */
async function consumeJti(
  jkt: string,
  payload: DpopJwtPayload,
  nowSeconds: number,
  replay: DpopReplayStore,
): Promise<void> {
  // Remembered for as long as the proof itself could still pass the iat check.
  const until = Math.max(nowSeconds, Math.ceil(payload.iat)) + DPOP_JTI_LIFETIME_SECONDS;
  const fresh = await replay.consume(DPOP_JTI_NAMESPACE, `${jkt}:${payload.jti}`, new Date(until * 1000));
  if (!fresh) throw invalidDpopProof("replay", "DPoP proof jti has already been used");
}

/**
 * Verifies a DPoP proof (RFC 9449 §4.3, the auth-server README and the root README). Structure, signature, claim, `ath` and
 * key-binding failures are `invalid_dpop_proof`; only a missing, invalid or expired server nonce
 * is `use_dpop_nonce` (so a client that retries with a fresh nonce succeeds). The `jti` is
 * consumed last, once everything else holds.
 *
 * Cheap checks first: the claims and the key binding are checked on the decoded payload before
 * the signature (a payload failing there is refused either way). The server nonce comes after the
 * signature, so a forged or broken proof is always `invalid_dpop_proof` and never an invitation to
 * retry (what wallets and conformance suites expect); the public key import is cached, so the
 * nonce round trip of a fresh wallet costs one verification with an already imported key.
 *
 * @throws DpopProofError
 */
export async function verifyDpopProof(options: VerifyDpopProofOptions): Promise<VerifiedDpopProof> {
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const compact = singleProofOf(options.header);
  const header = parseProofHeader(compact);
  const payload = decodeProofPayload(compact);
  checkRequestBinding(payload, options);
  checkIssuedAt(payload, nowSeconds);
  checkAccessTokenHash(payload, options.accessToken);
  let jkt: string;
  try {
    jkt = await publicKeyCache.thumbprint(header.jwk);
  } catch (error) {
    throw invalidDpopProof("jwk", `DPoP proof jwk is not a valid ${header.alg} public key`, error);
  }
  checkKeyBinding(jkt, options.expectedJkt);
  verifyProofSignature(compact, header);
  checkNonce(payload, options.nonces);
  await consumeJti(jkt, payload, nowSeconds, options.replay);
  return { jkt, jwk: header.jwk, jti: payload.jti };
}
