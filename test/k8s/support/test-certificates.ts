import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as never);

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface TestCertificates {
  rootPem: string;
  leafPem: string;
  leafKeyPem: string;
  /** Standard base64 DER of the leaf, as key custody returns it in x5c. */
  leafDer: string;
  rootDer: string;
}

/**
 * A root CA and a leaf (P-256), valid around `now` (the test's clock, so validity never depends on
 * today's date); `expired` makes both lie in the past of `now`. `issuer` (a tenant's `iss`) becomes
 * the leaf's URI subjectAltName, with its host as dNSName.
 */
export async function createTestCertificates(
  subject: string,
  options: { now: Date; expired?: boolean; rootIsCa?: boolean; issuer?: string },
): Promise<TestCertificates> {
  const day = 24 * 3600_000;
  const at = options.now.getTime();
  const notBefore = new Date(at - (options.expired ? 30 * day : 60_000));
  const notAfter = new Date(at + (options.expired ? -day : 365 * day));
  const rootKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${subject} Root CA`,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(options.rootIsCa ?? true, undefined, true)],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${subject}`,
    issuer: root.subject,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: options.issuer
      ? [
          new x509.SubjectAlternativeNameExtension([
            { type: "url", value: options.issuer },
            { type: "dns", value: new URL(options.issuer).hostname },
          ]),
        ]
      : [],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", leafKeys.privateKey)).toString("base64");
  return {
    rootPem: root.toString("pem"),
    leafPem: leaf.toString("pem"),
    leafKeyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n")}\n-----END PRIVATE KEY-----\n`,
    leafDer: Buffer.from(leaf.rawData).toString("base64"),
    rootDer: Buffer.from(root.rawData).toString("base64"),
  };
}
