import { isJsonObject } from "./decode-compact-jwt.js";
import { isAllowedJwsAlgorithm } from "./jws-algorithms.js";
import { type ParsedSdJwtPresentation, sdDigest } from "./parse-sd-jwt-presentation.js";
import { SdJwtVerificationError } from "./sd-jwt-verification-error.js";
import { keyMatchesAlgorithm, verifyJwsSignature } from "./verify-jws-signature.js";

/** `typ` of a Key Binding JWT (RFC 9901 §4.3). */
export const KB_JWT_TYP = "kb+jwt";

export interface KeyBindingExpectations {
  /** The verifier's full client_id, prefix included (OID4VP 1.0 §14.1.2 / B.3.6). */
  audience: string;
  /** The nonce of the authorization request. */
  nonce: string;
  /** Unix seconds. */
  now: number;
  /** Oldest acceptable `iat`: `now - maxAgeSeconds`. */
  maxAgeSeconds: number;
  /** Tolerance for an `iat` in the future. */
  clockSkewSeconds: number;
}

const fail = (code: string, message: string): never => {
  throw new SdJwtVerificationError(code, message);
};

/** The holder key of a credential: `cnf.jwk` (HAIP requires `jwk`; `kid`/`jku` are not resolvable here). */
export function holderJwkOf(claims: Record<string, unknown>): Record<string, unknown> | undefined {
  const cnf = claims.cnf;
  if (!isJsonObject(cnf)) return undefined;
  return isJsonObject(cnf.jwk) ? cnf.jwk : undefined;
}

/**
 * Verifies the Key Binding JWT of a presentation, in order: present, `typ` `kb+jwt`, allowed `alg`,
 * signature by `cnf.jwk`, `aud` = client_id, `nonce`, `iat` fresh (not older than maxAgeSeconds, not
 * further than the skew in the future), `sd_hash` over the presented SD-JWT. @sd-jwt/core checks
 * none of typ, aud or iat freshness, hence this function.
 */
export async function verifyKeyBindingJwt(
  presentation: ParsedSdJwtPresentation,
  holderJwk: Record<string, unknown>,
  expected: KeyBindingExpectations,
): Promise<void> {
  const kb = presentation.keyBindingJwt;
  if (!kb) return fail("kb_jwt_missing", "the presentation has no Key Binding JWT");
  if (kb.header.typ !== KB_JWT_TYP) return fail("kb_jwt_typ_invalid", `KB-JWT typ must be '${KB_JWT_TYP}'`);
  const alg = kb.header.alg;
  if (!isAllowedJwsAlgorithm(alg)) return fail("kb_jwt_alg_not_allowed", `KB-JWT alg '${String(alg)}' is not allowed`);
  if (!keyMatchesAlgorithm(holderJwk, alg)) {
    return fail("kb_jwt_signature_invalid", `KB-JWT alg '${alg}' does not fit the cnf.jwk key type`);
  }
  if (!(await verifyJwsSignature(kb.compact, holderJwk))) {
    return fail("kb_jwt_signature_invalid", "KB-JWT signature does not verify with cnf.jwk");
  }
  const { aud, nonce, iat, sd_hash: sdHash } = kb.payload;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(expected.audience) || audiences.length !== 1) {
    return fail("kb_jwt_aud_mismatch", "KB-JWT aud does not equal the verifier's client_id");
  }
  if (nonce !== expected.nonce) return fail("kb_jwt_nonce_mismatch", "KB-JWT nonce does not equal the request nonce");
  if (typeof iat !== "number" || !Number.isFinite(iat)) return fail("kb_jwt_iat_missing", "KB-JWT has no numeric iat");
  if (iat < expected.now - expected.maxAgeSeconds) {
    return fail("kb_jwt_iat_stale", `KB-JWT iat is older than ${expected.maxAgeSeconds} seconds`);
  }
  if (iat > expected.now + expected.clockSkewSeconds) {
    return fail("kb_jwt_iat_in_future", `KB-JWT iat is more than ${expected.clockSkewSeconds} seconds in the future`);
  }
  if (sdHash !== sdDigest(presentation.sdHashInput, presentation.sdAlg)) {
    return fail("kb_jwt_sd_hash_mismatch", "KB-JWT sd_hash does not match the presented SD-JWT");
  }
}
