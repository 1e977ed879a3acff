import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as never);

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface TestChain {
  /** Standard base64 DER, leaf first, root excluded. */
  x5c: string[];
  /** The leaf's P-256 private key as a JWK. */
  leafPrivateJwk: Record<string, string>;
  leaf: x509.X509Certificate;
  /** The root CA (the trust anchor a verifier configures). */
  root: x509.X509Certificate;
}

interface TestRoot {
  certificate: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

let sharedRoot: Promise<TestRoot> | undefined;

/** One root CA per test process: the test holder trusts it for verifiers' certificates (VERIFIER_TRUST_ANCHORS_PEM). */
function testRoot(): Promise<TestRoot> {
  sharedRoot ??= createRoot();
  return sharedRoot;
}

async function createRoot(name = "CN=Holder Test Root CA"): Promise<TestRoot> {
  {
    const keys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: "01",
      name,
      notBefore: new Date(Date.now() - 3600_000),
      notAfter: new Date(Date.now() + 365 * 24 * 3600_000),
      signingAlgorithm: EC,
      keys,
      extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
    });
    return { certificate, keys };
  }
}

/** The shared test root CA as PEM. */
export const testRootPem = async (): Promise<string> => (await testRoot()).certificate.toString("pem");

/** A root CA and a leaf (P-256) with optional URI and DNS names; `leafValidity` moves the leaf's window (expired chains). */
export async function createTestChain(
  subject: string,
  options: { dnsNames?: string[]; uris?: string[]; leafNotAfter?: Date; rootName?: string; ownRoot?: boolean } = {},
): Promise<TestChain> {
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  // `ownRoot` or `rootName`: a root of its own, which the test holder does not trust by default.
  const { certificate: root, keys: rootKeys } =
    options.ownRoot || options.rootName ? await createRoot(options.rootName) : await testRoot();
  const leafKeys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${subject}`,
    issuer: root.subject,
    notBefore,
    notAfter: options.leafNotAfter ?? notAfter,
    signingAlgorithm: EC,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.AuthorityKeyIdentifierExtension(
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey).then((e) => e.keyId),
      ),
      ...(options.dnsNames || options.uris
        ? [
            new x509.SubjectAlternativeNameExtension([
              ...(options.uris ?? []).map((value) => ({ type: "url" as const, value })),
              ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
            ]),
          ]
        : []),
    ],
  });
  const leafPrivateJwk = (await webcrypto.subtle.exportKey("jwk", leafKeys.privateKey)) as Record<string, string>;
  return {
    x5c: [Buffer.from(leaf.rawData).toString("base64")],
    leafPrivateJwk: { kty: "EC", crv: "P-256", x: leafPrivateJwk.x!, y: leafPrivateJwk.y!, d: leafPrivateJwk.d! },
    leaf,
    root,
  };
}

/** base64url AuthorityKeyIdentifier of a certificate (DCQL `aki`). */
export function authorityKeyIdOf(certificate: x509.X509Certificate): string {
  const keyId = certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId ?? "";
  return Buffer.from(keyId, "hex").toString("base64url");
}

export { x509 };
