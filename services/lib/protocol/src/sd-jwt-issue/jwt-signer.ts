import { createPrivateKey, type KeyObject, sign } from "node:crypto";
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

/** A JwtSigner over a private JWK (Ed25519 -> EdDSA, P-256 -> ES256). */
export function createPrivateJwkSigner(
  privateJwk: { kty?: string; crv?: string; d?: string },
  keyHeader: SignerKeyHeader,
): JwtSigner {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateJwk as never, format: "jwk" });
  } catch {
    throw new Error("private key cannot be imported");
  }
  const alg: SignatureAlgorithm | undefined =
    privateJwk.kty === "OKP" && privateJwk.crv === "Ed25519"
      ? "EdDSA"
      : privateJwk.kty === "EC" && privateJwk.crv === "P-256"
        ? "ES256"
        : undefined;
  if (!alg || !privateJwk.d) throw new Error("signing key must be an Ed25519 or P-256 private key");
  return {
    alg,
    keyHeader,
    async sign(signingInput) {
      const signature =
        alg === "EdDSA"
          ? sign(null, signingInput, key)
          : sign("sha256", signingInput, { key, dsaEncoding: "ieee-p1363" });
      return new Uint8Array(signature);
    },
  };
}
