import { createECDH, createPrivateKey, type JsonWebKey } from "node:crypto";
import { generatePrivateKey } from "./generate-private-key.js";
import { KeyFormatError } from "./key-format-error.js";

export interface P256PrivateJwk extends JsonWebKey {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  d: string;
}

export interface P256PublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
}

/** A P-256 private key from PKCS#8 (or SEC1) PEM. */
export function p256JwkFromPem(pem: string): P256PrivateJwk {
  let jwk: JsonWebKey;
  try {
    jwk = createPrivateKey({ key: pem, format: "pem" }).export({ format: "jwk" });
  } catch {
    throw new KeyFormatError("private key is not a valid PEM private key");
  }
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw new KeyFormatError("private key is not a P-256 key");
  return jwk as P256PrivateJwk;
}

/** A P-256 private key from its raw 32-byte scalar `d` (base64url). */
export function p256JwkFromRawD(d: string): P256PrivateJwk {
  const scalar = Buffer.from(d, "base64url");
  if (!/^[A-Za-z0-9_-]+$/.test(d) || scalar.length !== 32)
    throw new KeyFormatError("P-256 private key must be 32 bytes base64url");
  const ecdh = createECDH("prime256v1");
  try {
    ecdh.setPrivateKey(scalar);
  } catch {
    throw new KeyFormatError("P-256 private key is out of range");
  }
  const point = ecdh.getPublicKey();
  return {
    kty: "EC",
    crv: "P-256",
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33, 65).toString("base64url"),
    d: scalar.toString("base64url"),
  };
}

/** A fresh P-256 key pair as a private JWK. */
export function generateP256Jwk(): P256PrivateJwk {
  return generatePrivateKey("p256").export({ format: "jwk" }) as P256PrivateJwk;
}

/** The public part of a P-256 JWK (kty, crv, x, y only). */
export function p256PublicJwk(jwk: { x?: string; y?: string }): P256PublicJwk {
  if (!jwk.x || !jwk.y) throw new KeyFormatError("JWK has no public key");
  return { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
}

/**
 * A P-256 private key from configuration text: a private JWK as JSON, or PKCS#8/SEC1 PEM (also on
 * one line with literal `\n` escapes, as .env files and secret managers give it). Throws
 * KeyFormatError with a reason that never contains the key.
 */
export function p256PrivateJwkFromText(value: string): P256PrivateJwk {
  const text = value.trim();
  if (!text.startsWith("{")) {
    const { kty, crv, x, y, d } = p256JwkFromPem(text.includes("\n") ? text : text.replace(/\\n/g, "\n"));
    return { kty, crv, x, y, d };
  }
  let jwk: Partial<P256PrivateJwk>;
  try {
    jwk = JSON.parse(text) as Partial<P256PrivateJwk>;
  } catch {
    throw new KeyFormatError("not valid JSON");
  }
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.x || !jwk.y || !jwk.d) {
    throw new KeyFormatError("must be a P-256 private JWK (kty EC, crv P-256, x, y, d)");
  }
  return { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d };
}
