import { X509Certificate } from "node:crypto";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Parses a PEM bundle; throws when it holds no certificate or a block is not one. */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error("no PEM CERTIFICATE block");
  return blocks.map((block) => new X509Certificate(block));
}

/** SHA-256 fingerprint as lowercase hex without separators. */
export const fingerprintOf = (certificate: X509Certificate) =>
  certificate.fingerprint256.replace(/:/g, "").toLowerCase();

export const certificateFromBase64Der = (der: string) => new X509Certificate(Buffer.from(der, "base64"));
