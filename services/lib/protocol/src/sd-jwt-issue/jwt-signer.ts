import type { KeyObject } from "node:crypto";
import { algorithmOfKeyObject, importPrivateJwk, JwsError, signJwsInput } from "../keys/jws.js";
import type { SignatureAlgorithm } from "../proof/public-jwk.js";

/** JOSE header members that tell a verifier which key signed: a DID URL `kid`, or an `x5c` chain. */
export type SignerKeyHeader = { kid: string } | { x5c: string[] };

/**
 * Something that produces JWS signatures: a private key held here (DID path) or a key held by
 * key custody (X.509 path). Both paths issue credentials through the same code.
 */
export interface JwtSigner {
  alg: SignatureAlgorithm;
  keyHeader: SignerKeyHeader;
  /** The raw JWS signature (Ed25519, or IEEE P1363 r||s for ES256) over the signing input. */
  sign(signingInput: Uint8Array): Promise<Uint8Array>;
}

/** A JwtSigner over a private key imported once (keys/jws.ts): Ed25519 -> EdDSA, P-256 -> ES256. */
export function createKeyObjectSigner(key: KeyObject, keyHeader: SignerKeyHeader): JwtSigner {
  const alg = algorithmOfKeyObject(key);
  if (!alg || key.type !== "private") throw new Error("signing key must be an Ed25519 or P-256 private key");
  return {
    alg,
    keyHeader,
    async sign(signingInput) {
      return new Uint8Array(signJwsInput(alg, signingInput, key));
    },
  };
}

/** A JwtSigner over a private JWK (Ed25519 -> EdDSA, P-256 -> ES256). */
export function createPrivateJwkSigner(
  privateJwk: { kty?: string; crv?: string; d?: string },
  keyHeader: SignerKeyHeader,
): JwtSigner {
  let key: KeyObject;
  try {
    key = importPrivateJwk(privateJwk);
  } catch (error) {
    throw new Error(`signing key cannot be imported: ${error instanceof JwsError ? error.message : "invalid key"}`);
  }
  return createKeyObjectSigner(key, keyHeader);
}
