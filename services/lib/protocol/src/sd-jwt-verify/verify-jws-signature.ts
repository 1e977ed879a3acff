import type { JWK } from "jose";
import { verifyCompactJws } from "../keys/jws.js";
import { type CacheablePublicJwk, publicKeyCache } from "../keys/public-key-cache.js";
import { ALLOWED_JWS_ALGORITHMS, type AllowedJwsAlgorithm } from "./jws-algorithms.js";

/** Whether a public JWK can verify `alg`: ES256 needs an EC P-256 key, EdDSA an OKP Ed25519 key. */
export function keyMatchesAlgorithm(jwk: { kty?: unknown; crv?: unknown }, alg: AllowedJwsAlgorithm): boolean {
  if (alg === "ES256") return jwk.kty === "EC" && jwk.crv === "P-256";
  return jwk.kty === "OKP" && jwk.crv === "Ed25519";
}

/** The public members of an EC or OKP JWK (a `d` sent by mistake is never used). */
export function publicMembersOf(jwk: Record<string, unknown>): JWK {
  const { kty, crv, x, y } = jwk;
  return (kty === "EC" ? { kty, crv, x, y } : { kty, crv, x }) as JWK;
}

/** The allowed algorithm a public JWK verifies: ES256 for EC P-256, EdDSA for OKP Ed25519. */
const algorithmOfJwk = (jwk: { kty?: unknown; crv?: unknown }): AllowedJwsAlgorithm | undefined =>
  ALLOWED_JWS_ALGORITHMS.find((alg) => keyMatchesAlgorithm(jwk, alg));

/**
 * Verifies a compact JWS with a public JWK. The algorithm is the header's `alg`, which must be in
 * the allow-list and fit the key: the key's algorithm is the only one `verifyCompactJws` accepts,
 * so the header is decoded once, there. False on any failure (bad signature, wrong key type, bad key).
 */
export async function verifyJwsSignature(compact: string, publicJwk: Record<string, unknown>): Promise<boolean> {
  const alg = algorithmOfJwk(publicJwk);
  if (!alg) return false;
  try {
    verifyCompactJws(compact, publicKeyCache.importKey(publicMembersOf(publicJwk) as CacheablePublicJwk), [alg]);
    return true;
  } catch {
    return false;
  }
}
