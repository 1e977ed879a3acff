import { type KeyObject, sign } from "node:crypto";
import type { KeyAlgorithm } from "./key-custody.js";

/** A raw JWS signature: Ed25519 for EdDSA, IEEE P1363 r||s (64 bytes) for ES256. */
export function signWithKey(privateKey: KeyObject, alg: KeyAlgorithm, data: Uint8Array): Uint8Array {
  const signature =
    alg === "EdDSA"
      ? sign(null, data, privateKey)
      : sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" });
  return new Uint8Array(signature);
}
