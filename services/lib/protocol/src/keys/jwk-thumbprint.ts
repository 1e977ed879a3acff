import { createHash } from "node:crypto";

/** The public members a thumbprint covers: Ed25519 (OKP) and P-256 (EC) keys; other members are ignored. */
export interface ThumbprintableJwk {
  kty?: string;
  crv?: string;
  x?: string;
  y?: string;
}

/**
 * The RFC 7638 thumbprint input of the key: its required members in lexicographic order, no
 * whitespace. Two JWKs give the same input exactly when they are the same public key.
 */
export function jwkThumbprintInput(jwk: ThumbprintableJwk): string {
  const { kty, crv, x, y } = jwk;
  const present = (value: unknown) => typeof value === "string" && value.length > 0;
  if (kty === "EC" && present(crv) && present(x) && present(y)) return JSON.stringify({ crv, kty, x, y });
  if (kty === "OKP" && present(crv) && present(x)) return JSON.stringify({ crv, kty, x });
  throw new TypeError(`unsupported or incomplete ${String(kty)} key`);
}

/**
 * RFC 7638 SHA-256 thumbprint (base64url) of an OKP or EC key, computed synchronously: jose's
 * `calculateJwkThumbprint` gives the same value through WebCrypto's asynchronous digest, a job
 * round trip that costs far more than the hash. Throws a TypeError for any other key.
 */
export function jwkThumbprint(jwk: ThumbprintableJwk): string {
  return createHash("sha256").update(jwkThumbprintInput(jwk)).digest("base64url");
}
