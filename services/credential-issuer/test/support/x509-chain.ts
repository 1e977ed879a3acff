import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as never);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface TestChain {
  /** Standard base64 DER, leaf first, root excluded (as key custody returns it). */
  x5c: string[];
  trustAnchor: string;
  leafPrivateKey: CryptoKey;
  root: x509.X509Certificate;
  leaf: x509.X509Certificate;
}

/** A root CA and a tenant leaf certificate (P-256), like the trust registry's issuing CA makes. */
export async function createTestChain(tenant: string, options: { country?: string } = {}): Promise<TestChain> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const rootKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as CryptoKeyPair;
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    // ISO 18013-5 (mdoc) verifiers want the issuing country (C) in the issuer's name.
    name: options.country ? `C=${options.country}, CN=Attesto Test Root CA` : "CN=Attesto Test Root CA",
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    keys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${tenant}`,
    issuer: root.subject,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const base64 = (cert: x509.X509Certificate) => Buffer.from(cert.rawData).toString("base64");
  return { x5c: [base64(leaf)], trustAnchor: base64(root), leafPrivateKey: leafKeys.privateKey, root, leaf };
}

/** ES256 JWS signature (IEEE P1363 r||s, as WebCrypto produces it). */
export async function signEs256(privateKey: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, data));
}

export { x509 };
