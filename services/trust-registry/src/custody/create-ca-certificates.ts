import type { KeyObject } from "node:crypto";
import {
  addDays,
  authorityKeyIdentifierFor,
  BACKDATE_MILLISECONDS,
  ecdsaSigningKey,
  ecdsaWithSha256,
  randomSerialNumber,
  spkiOf,
} from "./certificate-tools.js";
import { x509 } from "./x509.js";

/** Validity of the generated root CA (the trust anchor verifiers install). */
export const ROOT_CA_VALIDITY_DAYS = 25 * 365;
/** Validity of the generated issuing CA; tenant certificates never outlive it. */
export const ISSUING_CA_VALIDITY_DAYS = 10 * 365;

const ORGANIZATION = "Attesto";
/**
 * countryName of the generated CAs by default (CA_COUNTRY): ISO/IEC 18013-5 (mdoc) requires C in the
 * IACA's and the document signer's names, and verifiers match an mDL's `issuing_country` against it.
 * "UT" (Utopia) is the fictional country of the ISO 18013-5 and EUDI test data; CAs generated
 * before it was added keep their name.
 */
export const DEFAULT_CA_COUNTRY = "UT";
const caKeyUsage = () => new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true);

/** A self-signed P-256 root CA certificate (CA:true, keyCertSign) of `country` (ISO 3166-1 alpha-2). */
export async function createRootCaCertificate(
  privateKey: KeyObject,
  now: Date,
  country: string = DEFAULT_CA_COUNTRY,
): Promise<x509.X509Certificate> {
  const publicKey = spkiOf(privateKey);
  const name: x509.JsonName = [{ C: [country] }, { CN: ["Attesto Root CA"] }, { O: [ORGANIZATION] }];
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: name,
    issuer: name,
    notBefore: new Date(now.getTime() - BACKDATE_MILLISECONDS),
    notAfter: addDays(now, ROOT_CA_VALIDITY_DAYS),
    publicKey,
    signingKey: await ecdsaSigningKey(privateKey),
    signingAlgorithm: ecdsaWithSha256,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      caKeyUsage(),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  });
}

/** A P-256 issuing CA certificate signed by the root (CA:true, pathLen 0: it signs only leaves). */
export async function createIssuingCaCertificate(options: {
  privateKey: KeyObject;
  root: x509.X509Certificate;
  rootKey: KeyObject;
  now: Date;
  /** ISO 3166-1 alpha-2; the root's by default. */
  country?: string;
}): Promise<x509.X509Certificate> {
  const { privateKey, root, rootKey, now } = options;
  const country = options.country ?? root.subjectName.getField("C")[0] ?? DEFAULT_CA_COUNTRY;
  const publicKey = spkiOf(privateKey);
  const notAfter = addDays(now, ISSUING_CA_VALIDITY_DAYS);
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: [{ C: [country] }, { CN: ["Attesto Issuing CA"] }, { O: [ORGANIZATION] }],
    issuer: root.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MILLISECONDS),
    notAfter: new Date(Math.min(notAfter.getTime(), root.notAfter.getTime())),
    publicKey,
    signingKey: await ecdsaSigningKey(rootKey),
    signingAlgorithm: ecdsaWithSha256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      caKeyUsage(),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await authorityKeyIdentifierFor(root),
    ],
  });
}
