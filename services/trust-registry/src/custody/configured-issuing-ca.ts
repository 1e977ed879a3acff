import { createPrivateKey, type KeyObject } from "node:crypto";
import { base64Der, ecdsaSigningKey, spkiOf } from "./certificate-tools.js";
import type { IssuingCa, IssuingCaSource } from "./issuing-ca.js";
import { x509 } from "./x509.js";

/** Invalid ISSUING_CA_* configuration; thrown when custody is created, so the service fails to start. */
export class IssuingCaConfigError extends Error {
  override name = "IssuingCaConfigError";
}

function parseCertificates(certPem: string): x509.X509Certificate[] {
  try {
    return x509.PemConverter.decodeWithHeaders(certPem)
      .filter((block) => block.type === "CERTIFICATE")
      .map((block) => new x509.X509Certificate(block.rawData));
  } catch (cause) {
    throw new IssuingCaConfigError("ISSUING_CA_CERT_PEM is not valid PEM", { cause });
  }
}

function parsePrivateKey(keyPem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: keyPem, format: "pem" });
  } catch {
    throw new IssuingCaConfigError("ISSUING_CA_KEY_PEM is not a PEM private key");
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new IssuingCaConfigError("ISSUING_CA_KEY_PEM must be a P-256 key");
  }
  return key;
}

/**
 * The issuing CA from configuration (production). `certPem` holds the issuing CA certificate first,
 * then the certificates above it in order; the LAST one is the trust anchor and stays out of `x5c`.
 * A single certificate is both the issuing CA and the anchor (tenant `x5c` is then just the leaf).
 * Checked at once: a key that does not match the certificate, or a non-CA certificate, fails start-up.
 */
export function configuredIssuingCa(options: { certPem: string; keyPem: string }): IssuingCaSource {
  const certificates = parseCertificates(options.certPem);
  const [certificate] = certificates;
  const anchor = certificates.at(-1);
  if (!certificate || !anchor) throw new IssuingCaConfigError("ISSUING_CA_CERT_PEM contains no certificate");
  if (!certificate.getExtension(x509.BasicConstraintsExtension)?.ca) {
    throw new IssuingCaConfigError("ISSUING_CA_CERT_PEM is not a CA certificate (basicConstraints CA:true)");
  }
  const privateKey = parsePrivateKey(options.keyPem);
  if (!spkiOf(privateKey).equals(Buffer.from(certificate.publicKey.rawData))) {
    throw new IssuingCaConfigError("ISSUING_CA_KEY_PEM does not match the first certificate of ISSUING_CA_CERT_PEM");
  }
  let issuingCa: Promise<IssuingCa> | undefined;
  return {
    get() {
      issuingCa ??= ecdsaSigningKey(privateKey).then((signingKey) => ({
        certificate,
        signingKey,
        chain: certificates.slice(0, -1).map(base64Der),
        trustAnchor: base64Der(anchor),
      }));
      return issuingCa;
    },
  };
}
