import { randomBytes } from "node:crypto";
import { generatePrivateKey } from "../keys/generate-private-key.js";

/** Key agreement of `direct_post.jwt` responses (HAIP: ECDH-ES with P-256). */
export const RESPONSE_ENCRYPTION_ALG = "ECDH-ES";

/** Content encryption accepted and advertised (`encrypted_response_enc_values_supported`). */
export const RESPONSE_ENCRYPTION_ENC_VALUES = ["A128GCM", "A256GCM"] as const;

export interface ResponseEncryptionPublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  use: "enc";
  alg: typeof RESPONSE_ENCRYPTION_ALG;
}

export interface ResponseEncryptionKey {
  /** Goes into `client_metadata.jwks` of the request object. */
  publicJwk: ResponseEncryptionPublicJwk;
  /** Private JWK (kty, crv, x, y, d); keep it encrypted at rest and drop it when the request ends. */
  privateJwk: { kty: "EC"; crv: "P-256"; x: string; y: string; d: string };
}

/** A fresh ephemeral P-256 key for one request's encrypted response; its `kid` is random and unique. */
export function createResponseEncryptionKey(): ResponseEncryptionKey {
  const jwk = generatePrivateKey("p256").export({ format: "jwk" }) as { x: string; y: string; d: string };
  const kid = randomBytes(16).toString("base64url");
  return {
    publicJwk: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, kid, use: "enc", alg: RESPONSE_ENCRYPTION_ALG },
    privateJwk: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d },
  };
}
