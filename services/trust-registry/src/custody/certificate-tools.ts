import { createPublicKey, type KeyObject, randomBytes, webcrypto } from "node:crypto";
import { x509 } from "./x509.js";

/** ECDSA P-256 with SHA-256, the only signature algorithm the platform CA uses (HAIP: ES256). */
export const ecdsaWithSha256 = { name: "ECDSA", hash: "SHA-256" } as const;

export const MILLISECONDS_PER_DAY = 86_400_000;

/** Certificates start a little in the past, so that clocks running behind still accept them. */
export const BACKDATE_MILLISECONDS = 5 * 60_000;

export const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * MILLISECONDS_PER_DAY);

/** Whether two chains (base64 DER, leaf first) hold the same certificates in the same order. */
export const sameChain = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((value, index) => value === b[index]);

/** A positive 16-byte serial number (RFC 5280: at most 20 octets, unpredictable), as hex. */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString("hex");
}

/** Standard base64 (not base64url) DER, as `x5c` wants it. */
export const base64Der = (certificate: x509.X509Certificate): string =>
  Buffer.from(certificate.rawData).toString("base64");

/** SubjectPublicKeyInfo DER of a key (public, or the public half of a private key). */
export const spkiOf = (key: KeyObject): Buffer =>
  (key.type === "public" ? key : createPublicKey(key)).export({ format: "der", type: "spki" });

/** A non-extractable WebCrypto signing key for a P-256 private KeyObject (what @peculiar/x509 signs with). */
export async function ecdsaSigningKey(privateKey: KeyObject): Promise<webcrypto.CryptoKey> {
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  try {
    return await webcrypto.subtle.importKey("pkcs8", pkcs8, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  } finally {
    pkcs8.fill(0);
  }
}

/** The Subject Key Identifier of a CA certificate, so a certificate it issues can name it (AKI). */
export async function authorityKeyIdentifierFor(issuer: x509.X509Certificate): Promise<x509.Extension> {
  const ski = issuer.getExtension(x509.SubjectKeyIdentifierExtension);
  return ski
    ? new x509.AuthorityKeyIdentifierExtension(ski.keyId)
    : x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey);
}
