import { createPrivateKey, webcrypto } from "node:crypto";
import { x509 } from "./custody-test-kit.js";

const DAY = 86_400_000;
const P256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const P384 = { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" } as const;

type Algorithm = typeof P256 | typeof P384;

export interface TenantChain {
  /** DER: leaf, intermediate, root. */
  leaf: Uint8Array;
  intermediate: Uint8Array;
  root: Uint8Array;
  /** The leaf's private key, PKCS#8 PEM. */
  leafKeyPem: string;
  /** The leaf's private key, SEC1 (`EC PRIVATE KEY`) PEM, when it is P-256. */
  leafKeySec1Pem?: string;
}

const generate = async (alg: Algorithm) =>
  (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;

const pem = (label: string, der: Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString("base64")
    .match(/.{1,64}/g)
    ?.join("\n")}\n-----END ${label}-----\n`;

/**
 * A tenant's own PKI: root CA -> intermediate CA -> leaf. `issuer` (the tenant's credential issuer
 * identifier) becomes the leaf's URI subjectAltName, with its host as dNSName; `subjectAltNames`
 * replaces both. Options make the leaf P-384, give it a keyUsage without digitalSignature, or put
 * the whole chain in the past.
 */
export async function createTenantChain(
  name: string,
  options: {
    issuer?: string;
    subjectAltNames?: Array<{ type: "url" | "dns"; value: string }>;
    leafAlg?: "P-256" | "P-384";
    leafKeyUsage?: number;
    expired?: boolean;
  } = {},
): Promise<TenantChain> {
  const subjectAltNames =
    options.subjectAltNames ??
    (options.issuer
      ? [
          { type: "url" as const, value: options.issuer },
          { type: "dns" as const, value: new URL(options.issuer).hostname },
        ]
      : []);
  const notBefore = new Date(Date.now() - (options.expired ? 60 * DAY : 60_000));
  const notAfter = new Date(Date.now() + (options.expired ? -DAY : 90 * DAY));
  const rootKeys = await generate(P256);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name} Root CA`,
    notBefore,
    notAfter,
    signingAlgorithm: P256,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const intermediateKeys = await generate(P256);
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${name} Issuing CA`,
    issuer: root.subject,
    notBefore,
    notAfter,
    signingAlgorithm: P256,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const leafKeys = await generate(options.leafAlg === "P-384" ? P384 : P256);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "03",
    subject: `CN=${name}`,
    issuer: intermediate.subject,
    notBefore,
    notAfter,
    signingAlgorithm: P256,
    publicKey: leafKeys.publicKey,
    signingKey: intermediateKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(options.leafKeyUsage ?? x509.KeyUsageFlags.digitalSignature, true),
      ...(subjectAltNames.length > 0 ? [new x509.SubjectAlternativeNameExtension(subjectAltNames)] : []),
    ],
  });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey("pkcs8", leafKeys.privateKey));
  const sec1 =
    options.leafAlg === "P-384"
      ? undefined
      : createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" }).export({
          format: "pem",
          type: "sec1",
        });
  return {
    leaf: new Uint8Array(leaf.rawData),
    intermediate: new Uint8Array(intermediate.rawData),
    root: new Uint8Array(root.rawData),
    leafKeyPem: pem("PRIVATE KEY", pkcs8),
    leafKeySec1Pem: typeof sec1 === "string" ? sec1 : undefined,
  };
}

export const base64 = (der: Uint8Array) => Buffer.from(der).toString("base64");
