import type { Ed25519PublicJwk } from "@attesto/protocol";

/** An Ed25519 verification method of a DID document. */
export interface Ed25519VerificationMethod {
  /** Absolute DID URL (`did:ledger:<id>#key-1`). */
  id: string;
  publicJwk: Ed25519PublicJwk;
}

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** Multicodec prefix of an Ed25519 public key in a Multikey `publicKeyMultibase`. */
const ED25519_MULTICODEC = [0xed, 0x01];

function decodeBase58(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  for (const char of text) {
    if (char !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

function jwkOf(method: Record<string, unknown>): Ed25519PublicJwk | undefined {
  const jwk = method.publicKeyJwk as Record<string, unknown> | undefined;
  if (jwk && jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string") {
    return { kty: "OKP", crv: "Ed25519", x: jwk.x };
  }
  const multibase = method.publicKeyMultibase;
  if (typeof multibase === "string" && multibase.startsWith("z")) {
    const bytes = decodeBase58(multibase.slice(1));
    if (bytes?.length === 34 && bytes[0] === ED25519_MULTICODEC[0] && bytes[1] === ED25519_MULTICODEC[1]) {
      return { kty: "OKP", crv: "Ed25519", x: Buffer.from(bytes.subarray(2)).toString("base64url") };
    }
  }
  return undefined;
}

/**
 * The Ed25519 keys a DID document lists under `verificationMethod` (as `publicKeyJwk` or as a
 * Multikey `publicKeyMultibase`), with relative ids (`#key-1`) made absolute.
 */
export function ed25519VerificationMethods(
  did: string,
  document: Record<string, unknown>,
): Ed25519VerificationMethod[] {
  const methods = Array.isArray(document.verificationMethod) ? document.verificationMethod : [];
  const found: Ed25519VerificationMethod[] = [];
  for (const method of methods) {
    if (typeof method !== "object" || method === null) continue;
    const entry = method as Record<string, unknown>;
    const publicJwk = jwkOf(entry);
    if (!publicJwk || typeof entry.id !== "string") continue;
    found.push({ id: entry.id.startsWith("#") ? `${did}${entry.id}` : entry.id, publicJwk });
  }
  return found;
}
