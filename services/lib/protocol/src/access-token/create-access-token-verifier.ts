import { KeyObject, type webcrypto } from "node:crypto";
import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { decodeCompactJws, JwsError, verifyJwsInput } from "../keys/jws.js";
import { AccessTokenError } from "./access-token-error.js";
import { type MintedTokens, mintedHere } from "./minted-here.js";
import {
  ACCESS_TOKEN_ALG,
  ACCESS_TOKEN_TYP,
  type AccessTokenClaims,
  parseAccessTokenPayload,
  zAccessTokenPayload,
} from "./z-access-token.js";

export interface CreateAccessTokenVerifierOptions {
  /**
   * The authorization server's keys: its key set, or the URL of its `jwks_uri`
   * (`<AS URL>/.well-known/jwks.json`), fetched on demand, cached and refetched for unknown `kid`s.
   */
  jwks: JSONWebKeySet | URL;
  /** The authorization server's issuer identifier, exactly as in its metadata and in every token's `iss`. */
  issuer: string;
  /** Accepted clock difference for `exp`, in seconds (default 0). */
  clockToleranceSeconds?: number;
  now?: () => Date;
  /**
   * Tokens this process signed (default: the process's one memory): one found there, with the key
   * the key set picked, needs no second signature check (minted-here.ts).
   */
  minted?: MintedTokens;
}

export interface VerifyAccessTokenOptions {
  /** Required `aud`: the credential issuer identifier `<issuer URL>/<tenant>`. Unchecked when omitted. */
  audience?: string;
}

/**
 * Verifies Attesto access tokens (for the credential issuer's `/credential` endpoint).
 *
 * ```ts
 * const verifier = createAccessTokenVerifier({ jwks: new URL(`${AUTH_SERVER_URL}/.well-known/jwks.json`), issuer: AUTH_SERVER_URL });
 * const claims = await verifier.verify(token, { audience: `${ISSUER_URL}/${tenant}` });
 * // claims: { issuer, audience, subject, clientId?, jti, issuedAt, expiresAt, tenant, offerId,
 * //           credentialConfigurationIds, dpopRequired, jkt? }  (jkt = cnf.jkt: the token is DPoP-bound)
 * ```
 * `verify` throws `AccessTokenError` (`code` "invalid_token", `reason` ...) when the token is
 * malformed, forged, signed by an unknown key, expired, of another `typ`, from another issuer or
 * for another audience; `reason: "key_set_unavailable"` means the JWKS could not be fetched (503).
 * It checks the signature and claims only: DPoP binding (`jkt` against the proof) is the caller's.
 */
export interface AccessTokenVerifier {
  verify(token: string, options?: VerifyAccessTokenOptions): Promise<AccessTokenClaims>;
}

const JWT_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A failure of the key set (jose) -> the AccessTokenError a caller switches on. */
function toAccessTokenError(error: unknown): AccessTokenError {
  if (error instanceof AccessTokenError) return error;
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new AccessTokenError("unknown_key", "access token is signed with an unknown key", { cause: error });
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return new AccessTokenError("key_set_unavailable", "authorization server keys are unavailable", { cause: error });
  }
  if (error instanceof errors.JOSEError) {
    return new AccessTokenError("malformed", "access token is not a valid JWT", { cause: error });
  }
  // Not a JOSE error: the remote key set could not be fetched (network, TLS, HTTP status).
  return new AccessTokenError("key_set_unavailable", "authorization server keys are unavailable", { cause: error });
}

/** The header's members, or a malformed-token refusal. */
function headerOf(token: string): Record<string, unknown> {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString("utf8"));
    if (typeof header === "object" && header !== null && !Array.isArray(header))
      return header as Record<string, unknown>;
  } catch {}
  throw new AccessTokenError("malformed", "access token is not a valid JWT");
}

/** Media types compare without an `application/` prefix and case-insensitively (RFC 7515 §4.1.9). */
const normalizeTyp = (typ: string) => typ.toLowerCase().replace(/^application\//, "");

const missing = (claim: string): AccessTokenError =>
  claim === "iss"
    ? new AccessTokenError("wrong_issuer", "access token was issued by another authorization server")
    : claim === "aud"
      ? new AccessTokenError("wrong_audience", "access token is meant for another audience")
      : new AccessTokenError("invalid_claims", `access token claim ${claim} is invalid`);

/**
 * The JWT checks jose's `jwtVerify` made, in its order (RFC 7519 §7.2, RFC 9068 §4): `typ`, the
 * required claims, issuer, audience, numeric `iat`/`nbf`/`exp`, not before, not expired.
 */
function checkClaims(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  expected: { issuer: string; audience?: string; nowSeconds: number; toleranceSeconds: number },
): void {
  if (typeof header.typ !== "string" || normalizeTyp(header.typ) !== normalizeTyp(ACCESS_TOKEN_TYP)) {
    throw new AccessTokenError("wrong_type", `access token typ must be "${ACCESS_TOKEN_TYP}"`);
  }
  const required = ["iss", "aud", "sub", "iat", "exp", "jti"];
  for (const claim of required) if (!Object.hasOwn(payload, claim)) throw missing(claim);
  if (payload.iss !== expected.issuer) throw missing("iss");
  if (expected.audience !== undefined) {
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(expected.audience)) throw missing("aud");
  }
  for (const claim of ["iat", "nbf", "exp"]) {
    if (payload[claim] !== undefined && (typeof payload[claim] !== "number" || !Number.isFinite(payload[claim]))) {
      throw missing(claim);
    }
  }
  const { nowSeconds, toleranceSeconds } = expected;
  if (typeof payload.nbf === "number" && payload.nbf > nowSeconds + toleranceSeconds) {
    throw new AccessTokenError("not_yet_valid", "access token is not yet valid");
  }
  if ((payload.exp as number) <= nowSeconds - toleranceSeconds) {
    throw new AccessTokenError("expired", "access token has expired");
  }
}

/**
 * The key set (local, or the remote `jwks_uri` jose fetches, caches and refetches for an unknown
 * `kid`) picks the key; the signature is checked with node:crypto on a KeyObject made once per
 * key (keys/jws.ts), not as a WebCrypto job per token, unless this process signed exactly this
 * token with that key (`minted`, the all-in-one: then the check could only succeed).
 */
export function createAccessTokenVerifier(options: CreateAccessTokenVerifierOptions): AccessTokenVerifier {
  const keys: JWTVerifyGetKey =
    options.jwks instanceof URL ? createRemoteJWKSet(options.jwks) : createLocalJWKSet(options.jwks);
  const keyObjects = new WeakMap<object, KeyObject>();
  const keyObjectOf = (key: webcrypto.CryptoKey | Uint8Array | KeyObject | object): KeyObject => {
    if (key instanceof KeyObject) return key;
    let found = keyObjects.get(key);
    if (!found) {
      found = KeyObject.from(key as webcrypto.CryptoKey);
      keyObjects.set(key, found);
    }
    return found;
  };
  const now = options.now ?? (() => new Date());
  const minted = options.minted ?? mintedHere;

  return {
    async verify(token, verifyOptions = {}) {
      if (typeof token !== "string" || !JWT_PATTERN.test(token)) {
        throw new AccessTokenError("malformed", "access token is not a compact JWT");
      }
      const header = headerOf(token);
      if (header.alg !== ACCESS_TOKEN_ALG) {
        throw new AccessTokenError("malformed", `access token must be signed with ${ACCESS_TOKEN_ALG}`);
      }
      let payload: Record<string, unknown>;
      try {
        const [encodedHeader, encodedPayload, signature] = token.split(".") as [string, string, string];
        const key = await keys(header as never, { protected: encodedHeader, payload: encodedPayload, signature });
        const keyObject = keyObjectOf(key);
        const jws = decodeCompactJws(token, [ACCESS_TOKEN_ALG]);
        if (!minted.vouches(token, keyObject) && !verifyJwsInput(jws.alg, jws.input, jws.signature, keyObject)) {
          throw new JwsError("signature", "JWS signature is invalid");
        }
        payload = JSON.parse(new TextDecoder().decode(jws.payload));
      } catch (error) {
        if (error instanceof JwsError && error.reason === "signature") {
          throw new AccessTokenError("invalid_signature", "access token signature is invalid", { cause: error });
        }
        if (error instanceof JwsError || error instanceof SyntaxError) {
          throw new AccessTokenError("malformed", "access token is not a valid JWT", { cause: error });
        }
        throw toAccessTokenError(error);
      }
      if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
        throw new AccessTokenError("malformed", "access token is not a valid JWT");
      }
      checkClaims(header, payload, {
        issuer: options.issuer,
        ...(verifyOptions.audience === undefined ? {} : { audience: verifyOptions.audience }),
        nowSeconds: Math.floor(now().getTime() / 1000),
        toleranceSeconds: options.clockToleranceSeconds ?? 0,
      });
      const parsed = zAccessTokenPayload.safeParse(payload);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join(".") || "payload";
        throw new AccessTokenError("invalid_claims", `access token claim ${field} is missing or invalid`);
      }
      return parseAccessTokenPayload(parsed.data);
    },
  };
}
