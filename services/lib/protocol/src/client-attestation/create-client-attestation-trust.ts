import { createHash } from "node:crypto";
import type { JWK } from "jose";
import { PRIVATE_JWK_MEMBERS } from "../dpop/z-dpop.js";
import type { Certificate } from "../sd-jwt-verify/verify-x5c-chain.js";

/** A wallet provider key the authorization server trusts to sign client attestations. */
export interface TrustedWalletProviderKey {
  /** Public members only (kty, crv, x, y) plus `kid`. */
  jwk: JWK;
  /** RFC 7638 thumbprint, to match an attestation that names its key by `jwk`. */
  thumbprint: string;
}

/**
 * Whom the authorization server believes about wallet instances: wallet provider keys (matched by
 * the attestation's `kid`, by its header `jwk`, or tried in turn) and X.509 roots (for attestations
 * that carry an `x5c` chain).
 */
export interface ClientAttestationTrust {
  readonly keys: readonly TrustedWalletProviderKey[];
  readonly x5cRoots: readonly Certificate[];
}

function publicKeyOf(jwk: JWK, index: number): JWK {
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) {
    throw new Error(`trusted wallet provider key ${index} contains private key material`);
  }
  if (jwk.kty === "EC" && jwk.crv === "P-256" && jwk.x && jwk.y) {
    return { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, ...(jwk.kid ? { kid: jwk.kid } : {}) };
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && jwk.x) {
    return { kty: "OKP", crv: "Ed25519", x: jwk.x, ...(jwk.kid ? { kid: jwk.kid } : {}) };
  }
  throw new Error(`trusted wallet provider key ${index} must be an EC P-256 or OKP Ed25519 public key`);
}

/** RFC 7638 SHA-256 thumbprint of a public EC or OKP key: its required members in lexicographic order. */
export function jwkThumbprint(jwk: JWK): string {
  const canonical =
    jwk.kty === "EC"
      ? JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })
      : JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash("sha256").update(canonical).digest("base64url");
}

/**
 * Validates the trusted keys (public EC P-256 / Ed25519 only) and collects the roots; throws a
 * message naming the bad key (never its value).
 */
export function createClientAttestationTrust(options: {
  keys?: readonly JWK[];
  x5cRoots?: readonly Certificate[];
}): ClientAttestationTrust {
  const keys = (options.keys ?? []).map((jwk, index) => {
    const publicJwk = publicKeyOf(jwk, index);
    return { jwk: publicJwk, thumbprint: jwkThumbprint(publicJwk) };
  });
  return { keys, x5cRoots: [...(options.x5cRoots ?? [])] };
}
