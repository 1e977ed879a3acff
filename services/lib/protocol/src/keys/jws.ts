import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import type { SignatureAlgorithm } from "./signature-algorithms.js";

/**
 * JWS signing and verification on node:crypto KeyObjects: the one place the platform's hot paths
 * (issuer credentials, access tokens, DPoP and key proofs, presentations, status list tokens) sign
 * and check compact JWS. jose with imported CryptoKeys runs every signature as a WebCrypto job on
 * the thread pool; a synchronous `sign`/`verify` on a KeyObject imported once is several times
 * cheaper for the small inputs a JWS signs. ES256 signatures are IEEE P1363 (r||s, RFC 7518
 * §3.4), EdDSA is Ed25519 (RFC 8037). Keys are imported with the functions here and kept by the
 * caller (a cache, a signer); generate new keys with `generatePrivateKey` (generate-private-key.ts).
 */

export class JwsError extends Error {
  constructor(
    readonly reason: "malformed" | "alg" | "key" | "signature",
    message: string,
  ) {
    super(message);
    this.name = "JwsError";
  }
}

/** A JWK for the key import: EC P-256 or OKP Ed25519, private when `d` is present. */
export interface JwsJwk {
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
  y?: unknown;
  d?: unknown;
}

/** Only the members of a P-256 or Ed25519 key; anything else (RSA, other curves) is refused. */
function keyMembers(jwk: JwsJwk, withPrivate: boolean): Record<string, unknown> {
  const supported = (jwk.kty === "EC" && jwk.crv === "P-256") || (jwk.kty === "OKP" && jwk.crv === "Ed25519");
  if (!supported) throw new JwsError("key", "key must be an EC P-256 or OKP Ed25519 JWK");
  const members =
    jwk.kty === "EC" ? { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y } : { kty: "OKP", crv: "Ed25519", x: jwk.x };
  return withPrivate ? { ...members, d: jwk.d } : members;
}

/** A public KeyObject from a public (or private: `d` is ignored) JWK. Throws JwsError("key"). */
export function importPublicJwk(jwk: JwsJwk): KeyObject {
  try {
    return createPublicKey({ key: keyMembers(jwk, false) as never, format: "jwk" });
  } catch (error) {
    if (error instanceof JwsError) throw error;
    throw new JwsError("key", "key is not a valid public key");
  }
}

/** A private KeyObject from a private JWK. Throws JwsError("key"). */
export function importPrivateJwk(jwk: JwsJwk): KeyObject {
  if (typeof jwk.d !== "string") throw new JwsError("key", "key must be a private JWK (with d)");
  try {
    return createPrivateKey({ key: keyMembers(jwk, true) as never, format: "jwk" });
  } catch (error) {
    if (error instanceof JwsError) throw error;
    throw new JwsError("key", "key is not a valid private key");
  }
}

/** The JWS algorithm a key signs with: EdDSA for Ed25519, ES256 for P-256, else undefined. */
export function algorithmOfKeyObject(key: KeyObject): SignatureAlgorithm | undefined {
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  return undefined;
}

/** The raw signature over `input` (P1363 r||s for ES256). The key must fit `alg`. */
export function signJwsInput(alg: SignatureAlgorithm, input: Uint8Array, key: KeyObject): Buffer {
  if (algorithmOfKeyObject(key) !== alg) throw new JwsError("key", `key does not fit alg ${alg}`);
  return alg === "EdDSA" ? sign(null, input, key) : sign("sha256", input, { key, dsaEncoding: "ieee-p1363" });
}

/** Whether `signature` is `alg`'s signature over `input` by `key`; false for a key of another type. */
export function verifyJwsInput(alg: SignatureAlgorithm, input: Uint8Array, signature: Uint8Array, key: KeyObject) {
  if (algorithmOfKeyObject(key) !== alg) return false;
  try {
    return alg === "EdDSA"
      ? verify(null, input, key, signature)
      : verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
}

const encodeJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A compact JWS: the protected header (its `alg` is set from `alg`) and the payload (an object,
 * serialised as JSON, or bytes taken as they are), signed with `key`.
 */
export function signCompactJws(
  alg: SignatureAlgorithm,
  header: Record<string, unknown>,
  payload: Record<string, unknown> | Uint8Array,
  key: KeyObject,
): string {
  const encodedPayload =
    payload instanceof Uint8Array ? Buffer.from(payload).toString("base64url") : encodeJson(payload);
  const { alg: _replaced, ...members } = header;
  const input = `${encodeJson({ alg, ...members })}.${encodedPayload}`;
  return `${input}.${signJwsInput(alg, Buffer.from(input), key).toString("base64url")}`;
}

/** base64url without padding (RFC 7515 §2); a length that no byte string encodes to is refused. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const decodeSegment = (segment: string, what: string): Buffer => {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) {
    throw new JwsError("malformed", `JWS ${what} is not base64url`);
  }
  return Buffer.from(segment, "base64url");
};

export interface DecodedJws {
  header: Record<string, unknown>;
  alg: SignatureAlgorithm;
  payload: Uint8Array;
}

/** A compact JWS taken apart and its header checked, its signature not yet. */
export interface UncheckedJws extends DecodedJws {
  /** The signing input, `<header>.<payload>` as sent. */
  input: Buffer;
  signature: Buffer;
}

/**
 * Takes a compact JWS apart as jose's `compactVerify` does before the signature: three base64url
 * parts, a JSON object header whose `alg` is one of `algorithms`, no `crit` (no extension is
 * understood). The signature is NOT checked: `verifyCompactJws` does both; call this alone only
 * where the signature is vouched for otherwise (access-token/minted-here.ts). Throws JwsError with a
 * reason that never echoes the input.
 */
export function decodeCompactJws(compact: string, algorithms: readonly SignatureAlgorithm[]): UncheckedJws {
  if (typeof compact !== "string") throw new JwsError("malformed", "JWS must be a string");
  const parts = compact.split(".");
  if (parts.length !== 3) throw new JwsError("malformed", "JWS must have three parts");
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(decodeSegment(encodedHeader, "header")));
  } catch (error) {
    if (error instanceof JwsError) throw error;
    throw new JwsError("malformed", "JWS header is not JSON");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new JwsError("malformed", "JWS header is not a JSON object");
  }
  const members = header as Record<string, unknown>;
  if (members.crit !== undefined) throw new JwsError("malformed", "JWS header crit is not supported");
  const alg = members.alg;
  if (typeof alg !== "string" || !(algorithms as readonly string[]).includes(alg)) {
    throw new JwsError("alg", "JWS alg is not allowed");
  }
  const payload = decodeSegment(encodedPayload, "payload");
  const signature = decodeSegment(encodedSignature, "signature");
  return {
    header: members,
    alg: alg as SignatureAlgorithm,
    payload: new Uint8Array(payload),
    input: Buffer.from(`${encodedHeader}.${encodedPayload}`),
    signature,
  };
}

/**
 * Verifies a compact JWS with `key`, as jose's `compactVerify` does for these algorithms: the
 * checks of `decodeCompactJws`, an `alg` that fits the key, and the signature. Throws JwsError with
 * a reason that never echoes the input.
 */
export function verifyCompactJws(
  compact: string,
  key: KeyObject,
  algorithms: readonly SignatureAlgorithm[],
): DecodedJws {
  const { header, alg, payload, input, signature } = decodeCompactJws(compact, algorithms);
  if (!verifyJwsInput(alg, input, signature, key)) {
    throw new JwsError("signature", "JWS signature is invalid");
  }
  return { header, alg, payload };
}
