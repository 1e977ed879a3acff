import { type KeyObject, sign, verify } from "node:crypto";
import { base64url } from "jose";

/**
 * Compact JWS (RFC 7515 §7.1) signing and verification with node's synchronous `crypto.sign` /
 * `crypto.verify` on cached KeyObjects, for the platform's two algorithms (ES256, EdDSA). jose's
 * `compactVerify` / `SignJWT` go through WebCrypto: one promise and one thread-pool job per
 * signature, which costs more CPU than the Ed25519 or P-256 operation itself. The checks mirror
 * jose's `compactVerify` (three parts, protected header a JSON object, `crit` rules with `b64` as
 * the only recognized extension, `alg` in the allow-list, jose's own base64url decoder) so the set
 * of accepted inputs is the same.
 */

export type CompactJwsAlgorithm = "ES256" | "EdDSA";

export class CompactJwsError extends Error {
  override name = "CompactJwsError";
}

export interface VerifiedCompactJws {
  payload: Uint8Array;
  protectedHeader: Record<string, unknown>;
}

const fail = (message: string): never => {
  throw new CompactJwsError(message);
};

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function decodeSegment(segment: string, what: string): Uint8Array {
  try {
    return base64url.decode(segment);
  } catch {
    return fail(`${what} is not base64url`);
  }
}

function parseProtectedHeader(segment: string): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(base64url.decode(segment)));
  } catch {
    return fail("JWS protected header is invalid");
  }
  if (!isJsonObject(header)) fail("JWS protected header is invalid");
  return header as Record<string, unknown>;
}

/** Whether the payload is base64url-encoded (RFC 7797: `b64: false` only when `crit` names it). */
function payloadIsEncoded(header: Record<string, unknown>): boolean {
  const { crit } = header;
  if (crit === undefined) return true;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => typeof name !== "string" || name.length === 0)) {
    fail('"crit" must be an array of non-empty strings');
  }
  for (const name of crit as string[]) {
    if (name !== "b64") fail(`extension header parameter "${name}" is not recognized`);
    if (header[name] === undefined) fail(`extension header parameter "${name}" is missing`);
  }
  if (typeof header.b64 !== "boolean") fail('"b64" must be a boolean');
  return header.b64 as boolean;
}

/** The key type `alg` needs (RFC 8037 Ed25519 for EdDSA, P-256 for ES256): no algorithm confusion. */
function keyFitsAlgorithm(alg: CompactJwsAlgorithm, key: KeyObject): boolean {
  if (alg === "EdDSA") return key.asymmetricKeyType === "ed25519";
  return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1";
}

function verifySignatureBytes(alg: CompactJwsAlgorithm, key: KeyObject, data: Buffer, signature: Uint8Array): boolean {
  if (!keyFitsAlgorithm(alg, key)) return false;
  try {
    return alg === "EdDSA"
      ? verify(null, data, key, signature)
      : verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
}

/**
 * Verifies a compact JWS with `key` (a public KeyObject of `alg`'s type), accepting only `alg`.
 * Returns the payload bytes and protected header; throws CompactJwsError on any failure.
 */
export function verifyCompactJws(compact: string, key: KeyObject, alg: CompactJwsAlgorithm): VerifiedCompactJws {
  if (typeof compact !== "string") fail("JWS must be a string");
  const parts = compact.split(".");
  if (parts.length !== 3) fail("invalid compact JWS");
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const protectedHeader = parseProtectedHeader(encodedHeader);
  const encoded = payloadIsEncoded(protectedHeader);
  if (typeof protectedHeader.alg !== "string" || protectedHeader.alg === "") fail("JWS alg is missing or invalid");
  if (protectedHeader.alg !== alg) fail("JWS alg is not allowed");
  const signature = decodeSegment(encodedSignature, "JWS signature");
  const data = Buffer.from(`${encodedHeader}.${encodedPayload}`, "utf8");
  if (!verifySignatureBytes(alg, key, data, signature)) fail("JWS signature verification failed");
  const payload = encoded ? decodeSegment(encodedPayload, "JWS payload") : new TextEncoder().encode(encodedPayload);
  return { payload, protectedHeader };
}

const encodeJson = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/**
 * Signs `payload` (a JSON object) as a compact JWS with `header` (which names `alg`) and a private
 * KeyObject: byte for byte what jose's `SignJWT(payload).setProtectedHeader(header).sign(key)` writes.
 */
export function signCompactJws(
  header: Record<string, unknown> & { alg: CompactJwsAlgorithm },
  payload: Record<string, unknown>,
  key: KeyObject,
): string {
  const signingInput = `${encodeJson(header)}.${encodeJson(payload)}`;
  const data = Buffer.from(signingInput, "utf8");
  const signature =
    header.alg === "EdDSA" ? sign(null, data, key) : sign("sha256", data, { key, dsaEncoding: "ieee-p1363" });
  return `${signingInput}.${signature.toString("base64url")}`;
}
