import type { Ed25519PublicJwk } from "../keys/ed25519.js";
import type { P256PublicJwk } from "../keys/p256.js";
import type { SignatureAlgorithm } from "../keys/signature-algorithms.js";

/** A public key as JOSE names it, reduced to the members that identify it. */
export type PublicJwk = Ed25519PublicJwk | P256PublicJwk;

export type { SignatureAlgorithm } from "../keys/signature-algorithms.js";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"];

/** Whether a JWK carries private key material. */
export function hasPrivateKeyMaterial(jwk: object): boolean {
  return PRIVATE_MEMBERS.some((member) => member in jwk);
}

/**
 * The public members of an Ed25519 or P-256 JWK (kty, crv, x[, y]), or undefined for any other key.
 * Used wherever a key is embedded (cnf.jwk) or compared, so extra members never matter.
 */
export function publicJwkOf(jwk: unknown): PublicJwk | undefined {
  if (typeof jwk !== "object" || jwk === null) return undefined;
  const { kty, crv, x, y } = jwk as Record<string, unknown>;
  if (kty === "OKP" && crv === "Ed25519" && typeof x === "string" && x.length > 0) return { kty, crv, x };
  if (kty === "EC" && crv === "P-256" && typeof x === "string" && typeof y === "string" && x && y) {
    return { kty, crv, x, y };
  }
  return undefined;
}

/** The algorithm a key signs with: EdDSA for Ed25519, ES256 for P-256. */
export const algorithmOfKey = (jwk: PublicJwk): SignatureAlgorithm => (jwk.kty === "OKP" ? "EdDSA" : "ES256");

/** Whether two keys are the same public key. */
export function samePublicKey(a: PublicJwk, b: PublicJwk): boolean {
  if (a.kty === "OKP" && b.kty === "OKP") return a.crv === b.crv && a.x === b.x;
  if (a.kty === "EC" && b.kty === "EC") return a.crv === b.crv && a.x === b.x && a.y === b.y;
  return false;
}
