import { createPrivateKey, type KeyObject } from "node:crypto";
import {
  decodeEd25519Seed,
  ed25519JwkFromSeed,
  ed25519PublicJwk,
  generatePrivateKey as generateKeyObject,
  KeyFormatError,
  p256JwkFromRawD,
  p256PublicJwk,
} from "@attesto/protocol";
import { badRequest } from "@attesto/runtime/errors";
import type { KeyAlgorithm, PublicJwk } from "./key-custody.js";

export const keyAlgorithms: readonly KeyAlgorithm[] = ["EdDSA", "ES256"];

export function assertKeyAlgorithm(alg: unknown): KeyAlgorithm {
  if (!keyAlgorithms.includes(alg as KeyAlgorithm)) throw badRequest(`alg must be one of ${keyAlgorithms.join(", ")}`);
  return alg as KeyAlgorithm;
}

/** A fresh private key: Ed25519 for EdDSA, P-256 for ES256. */
export function generatePrivateKey(alg: KeyAlgorithm): KeyObject {
  return generateKeyObject(alg === "EdDSA" ? "ed25519" : "p256");
}

/** The public JWK of a private key, members kty, crv, x (and y) only. */
export function publicJwkOf(privateKey: KeyObject, alg: KeyAlgorithm): PublicJwk {
  const jwk = privateKey.export({ format: "jwk" });
  return alg === "EdDSA" ? { ...ed25519PublicJwk(jwk) } : { ...p256PublicJwk(jwk) };
}

export const exportPkcs8 = (privateKey: KeyObject): Buffer => privateKey.export({ format: "der", type: "pkcs8" });
export const importPkcs8 = (der: Uint8Array): KeyObject =>
  createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" });

const expectedShape = { EdDSA: { kty: "OKP", crv: "Ed25519" }, ES256: { kty: "EC", crv: "P-256" } } as const;

/**
 * A private key from a caller's JWK. The key is rebuilt from `d` alone; public members, when
 * given, must match it. Messages never echo key material.
 */
export function importPrivateJwk(alg: KeyAlgorithm, jwk: Record<string, unknown>): KeyObject {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk))
    throw badRequest("private JWK must be a JSON object");
  const { kty, crv } = expectedShape[alg];
  if (jwk.kty !== kty || jwk.crv !== crv) throw badRequest(`alg ${alg} needs a JWK with kty ${kty} and crv ${crv}`);
  if (jwk.alg !== undefined && jwk.alg !== alg) throw badRequest(`JWK alg does not match ${alg}`);
  if (typeof jwk.d !== "string") throw badRequest("JWK has no private key (d)");
  let rebuilt: { x: string; y?: string };
  try {
    rebuilt = alg === "EdDSA" ? ed25519JwkFromSeed(decodeEd25519Seed(jwk.d)) : p256JwkFromRawD(jwk.d);
  } catch (error) {
    if (error instanceof KeyFormatError) throw badRequest(`invalid private JWK: ${error.message}`);
    throw badRequest("invalid private JWK");
  }
  for (const member of ["x", "y"] as const) {
    if (jwk[member] !== undefined && jwk[member] !== rebuilt[member]) {
      throw badRequest("JWK public key does not match its private key");
    }
  }
  return createPrivateKey({ key: rebuilt as never, format: "jwk" });
}
