import type { KeyObject } from "node:crypto";
import { internalError } from "@attesto/runtime/errors";
import {
  addDays,
  authorityKeyIdentifierFor,
  BACKDATE_MILLISECONDS,
  ecdsaWithSha256,
  randomSerialNumber,
  spkiOf,
} from "./certificate-tools.js";
import type { LeafNames } from "./issuer-names.js";
import type { IssuingCa } from "./issuing-ca.js";
import { x509 } from "./x509.js";

/**
 * A tenant's signing or verifier certificate: subject C=<the issuing CA's country>, CN=<tenant>,
 * O=Attesto (ISO/IEC 18013-5 requires a document signer's countryName, equal to its IACA's); subjectAltName = the
 * given names (an issuer's `iss` as URI and its host as dNSName; a verifier's host as dNSName);
 * digitalSignature only; not a CA; random serial; valid
 * `validityDays` but never beyond the issuing CA.
 */
export async function issueLeafCertificate(options: {
  issuer: IssuingCa;
  tenant: string;
  names: LeafNames;
  publicKey: KeyObject;
  now: Date;
  validityDays: number;
}): Promise<x509.X509Certificate> {
  const { issuer, tenant, now, validityDays } = options;
  if (issuer.certificate.notAfter <= now) throw internalError("The issuing CA certificate has expired");
  const publicKey = spkiOf(options.publicKey);
  const notAfter = addDays(now, validityDays);
  const country = issuer.certificate.subjectName.getField("C")[0];
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: [...(country ? [{ C: [country] }] : []), { CN: [tenant] }, { O: ["Attesto"] }],
    issuer: issuer.certificate.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MILLISECONDS),
    notAfter: new Date(Math.min(notAfter.getTime(), issuer.certificate.notAfter.getTime())),
    publicKey,
    signingKey: issuer.signingKey,
    signingAlgorithm: ecdsaWithSha256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await authorityKeyIdentifierFor(issuer.certificate),
      options.names.subjectAltName(),
    ],
  });
}
