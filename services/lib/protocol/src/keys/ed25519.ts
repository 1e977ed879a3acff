import { createPrivateKey, createPublicKey, type JsonWebKey } from "node:crypto";
import { generatePrivateKey } from "./generate-private-key.js";
import { KeyFormatError } from "./key-format-error.js";
import { createSeedPublicKeyCache } from "./seed-public-key-cache.js";

/** DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface Ed25519PrivateJwk extends JsonWebKey {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
}

export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

/** Decodes a base64url Ed25519 private key (the 32-byte seed). */
export function decodeEd25519Seed(value: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) throw new KeyFormatError("private key must be base64url");
  const seed = Buffer.from(value, "base64url");
  if (seed.length !== 32) throw new KeyFormatError(`Ed25519 private key must be 32 bytes, got ${seed.length}`);
  return seed;
}

const derivedPublicKeys = createSeedPublicKeyCache();

/** The public key (`x`) of a seed, derived the slow way. */
function deriveEd25519X(seed: Uint8Array): string {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  return (key.export({ format: "jwk" }) as Ed25519PrivateJwk).x;
}

/** The private JWK of an Ed25519 seed (its public key derived once per seed: seed-public-key-cache.ts). */
export function ed25519JwkFromSeed(seed: Uint8Array): Ed25519PrivateJwk {
  if (seed.length !== 32) throw new KeyFormatError(`Ed25519 private key must be 32 bytes, got ${seed.length}`);
  const x = derivedPublicKeys.publicKeyOf(seed, deriveEd25519X);
  return { crv: "Ed25519", d: Buffer.from(seed).toString("base64url"), x, kty: "OKP" };
}

/** A fresh Ed25519 key pair as a private JWK. */
export function generateEd25519Jwk(): Ed25519PrivateJwk {
  return generatePrivateKey("ed25519").export({ format: "jwk" }) as Ed25519PrivateJwk;
}

/** The base64url seed of an Ed25519 private JWK (the `d` member). */
export const ed25519SeedOf = (jwk: Ed25519PrivateJwk): string => jwk.d;

/** The public part of an Ed25519 JWK. */
export function ed25519PublicJwk(jwk: { x?: string }): Ed25519PublicJwk {
  if (!jwk.x) throw new KeyFormatError("JWK has no public key");
  return { kty: "OKP", crv: "Ed25519", x: jwk.x };
}

/** Whether a base64url seed belongs to the given public key. */
export function ed25519SeedMatches(seed: Uint8Array, publicJwk: { kty?: string; crv?: string; x?: string }): boolean {
  if (publicJwk.kty !== "OKP" || publicJwk.crv !== "Ed25519" || !publicJwk.x) return false;
  return ed25519JwkFromSeed(seed).x === publicJwk.x;
}

/** Validates that a JWK is an Ed25519 public key that Node can import. */
export function assertEd25519PublicJwk(jwk: unknown): Ed25519PublicJwk {
  const candidate = jwk as Partial<Ed25519PublicJwk> | null;
  if (candidate?.kty !== "OKP" || candidate.crv !== "Ed25519" || typeof candidate.x !== "string") {
    throw new KeyFormatError("expected an Ed25519 public JWK (kty OKP, crv Ed25519, x)");
  }
  try {
    createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: candidate.x }, format: "jwk" });
  } catch {
    throw new KeyFormatError("Ed25519 public key is malformed");
  }
  return { kty: "OKP", crv: "Ed25519", x: candidate.x };
}
