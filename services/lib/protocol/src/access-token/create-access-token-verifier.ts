import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { AccessTokenError, type AccessTokenFailureReason } from "./access-token-error.js";
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

function claimFailure(error: errors.JWTClaimValidationFailed): AccessTokenError {
  const byClaim: Record<string, [AccessTokenFailureReason, string]> = {
    iss: ["wrong_issuer", "access token was issued by another authorization server"],
    aud: ["wrong_audience", "access token is meant for another audience"],
    typ: ["wrong_type", `access token typ must be "${ACCESS_TOKEN_TYP}"`],
    nbf: ["not_yet_valid", "access token is not yet valid"],
  };
  const [reason, message] = byClaim[error.claim] ?? ["invalid_claims", `access token claim ${error.claim} is invalid`];
  return new AccessTokenError(reason, message, { cause: error });
}

/** A jose failure -> the AccessTokenError a caller switches on. */
function toAccessTokenError(error: unknown): AccessTokenError {
  if (error instanceof AccessTokenError) return error;
  if (error instanceof errors.JWTExpired)
    return new AccessTokenError("expired", "access token has expired", { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error);
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new AccessTokenError("invalid_signature", "access token signature is invalid", { cause: error });
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new AccessTokenError("unknown_key", "access token is signed with an unknown key", { cause: error });
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new AccessTokenError("malformed", `access token must be signed with ${ACCESS_TOKEN_ALG}`, { cause: error });
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

export function createAccessTokenVerifier(options: CreateAccessTokenVerifierOptions): AccessTokenVerifier {
  const keys: JWTVerifyGetKey =
    options.jwks instanceof URL ? createRemoteJWKSet(options.jwks) : createLocalJWKSet(options.jwks);
  const now = options.now ?? (() => new Date());

  return {
    async verify(token, verifyOptions = {}) {
      if (typeof token !== "string" || !JWT_PATTERN.test(token)) {
        throw new AccessTokenError("malformed", "access token is not a compact JWT");
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          typ: ACCESS_TOKEN_TYP,
          algorithms: [ACCESS_TOKEN_ALG],
          requiredClaims: ["iss", "aud", "sub", "iat", "exp", "jti"],
          clockTolerance: options.clockToleranceSeconds ?? 0,
          currentDate: now(),
          ...(verifyOptions.audience === undefined ? {} : { audience: verifyOptions.audience }),
        }));
      } catch (error) {
        throw toAccessTokenError(error);
      }
      const parsed = zAccessTokenPayload.safeParse(payload);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join(".") || "payload";
        throw new AccessTokenError("invalid_claims", `access token claim ${field} is missing or invalid`);
      }
      return parseAccessTokenPayload(parsed.data);
    },
  };
}
