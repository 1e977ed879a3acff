// reflect-metadata must be loaded before @peculiar/x509, which throws at import otherwise.
import "reflect-metadata";
import {
  createECDH,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type JsonWebKey,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
  webcrypto,
} from "node:crypto";
import { CoseKey, KeyType, type MdocContext } from "@owf/mdoc";
import * as x509 from "@peculiar/x509";
import { type CoseSignatureAlgorithmName, digestOfSignatureAlgorithm, jwsAlgorithmOfCose } from "./cose-algorithms.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

/** Signs a COSE `Sig_structure` (the bytes to be signed) and returns the raw signature (r||s for ECDSA). */
export type CoseSign = (toBeSigned: Uint8Array) => Promise<Uint8Array>;

const NODE_DIGESTS = { "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" } as const;

function algorithmNameOf(algorithm: number | string | undefined): CoseSignatureAlgorithmName {
  const name = typeof algorithm === "number" ? jwsAlgorithmOfCose(algorithm) : algorithm;
  if (name !== "ES256" && name !== "ES384" && name !== "ES512" && name !== "EdDSA") {
    throw new Error("unsupported COSE signature algorithm");
  }
  return name;
}

function signWithCoseKey(key: CoseKey, alg: CoseSignatureAlgorithmName, data: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({ key: key.jwk as JsonWebKey, format: "jwk" });
  return new Uint8Array(sign(digestOfSignatureAlgorithm(alg), data, { key: privateKey, dsaEncoding: "ieee-p1363" }));
}

function verifyWithCoseKey(key: CoseKey, alg: CoseSignatureAlgorithmName, data: Uint8Array, signature: Uint8Array) {
  const { kty, crv, x, y } = key.jwk as Record<string, string>;
  const publicKey = createPublicKey({ key: { kty, crv, x, y } as JsonWebKey, format: "jwk" });
  return verify(digestOfSignatureAlgorithm(alg), data, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
}

function hmacOf(key: CoseKey, data: Uint8Array): Uint8Array {
  const secret = key.k ?? key.privateKey;
  return new Uint8Array(createHmac("sha256", secret).update(data).digest());
}

/** A certificate chain (leaf first) checked up to one of the trusted certificates at `now`. */
async function verifyCertificateChain(input: { trustedCertificates: Uint8Array[]; x5chain: Uint8Array[]; now?: Date }) {
  const chain = input.x5chain.map((der) => new x509.X509Certificate(der));
  const trusted = input.trustedCertificates.map((der) => new x509.X509Certificate(der));
  if (chain.length === 0) throw new Error("the certificate chain is empty");
  const date = input.now ?? new Date();
  for (let index = 0; index < chain.length; index++) {
    const certificate = chain[index] as x509.X509Certificate;
    if (trusted.some((anchor) => anchor.equal(certificate))) return;
    const issuer =
      chain[index + 1] ?? trusted.find((anchor) => anchor.subjectName.toString() === certificate.issuerName.toString());
    if (!issuer) throw new Error("the certificate chain does not reach a trusted certificate");
    const valid = await certificate.verify({ publicKey: issuer.publicKey, date });
    if (!valid) throw new Error("a certificate in the chain is not valid (signature or validity period)");
    if (trusted.some((anchor) => anchor.equal(issuer))) return;
  }
  throw new Error("the certificate chain does not reach a trusted certificate");
}

/**
 * The crypto, COSE and X.509 callbacks `@owf/mdoc` needs, on node:crypto and @peculiar/x509.
 * `sign` replaces local signing when the private key lives elsewhere (key custody): the COSE key
 * passed to the library then carries only the public part, and `sign` produces the signature.
 */
export function createMdocContext(options: { sign?: CoseSign } = {}): MdocContext {
  return {
    crypto: {
      random: (length) => new Uint8Array(randomBytes(length)),
      digest: ({ digestAlgorithm, bytes }) =>
        new Uint8Array(createHash(NODE_DIGESTS[digestAlgorithm]).update(bytes).digest()),
      calculateEphemeralMacKey: ({ privateKey, publicKey, sessionTranscriptBytes, info }) => {
        const ecdh = createECDH("prime256v1");
        ecdh.setPrivateKey(privateKey);
        const shared = ecdh.computeSecret(
          publicKey.length === 64 ? Buffer.concat([Buffer.from([4]), publicKey]) : publicKey,
        );
        const salt = createHash("sha256").update(sessionTranscriptBytes).digest();
        const k = new Uint8Array(hkdfSync("sha256", shared, salt, info, 32));
        return CoseKey.create({ keyType: KeyType.Oct, k });
      },
    },
    cose: {
      sign1: {
        sign: async ({ toBeSigned, key, algorithm }) => {
          if (options.sign) return options.sign(toBeSigned);
          return signWithCoseKey(key, algorithmNameOf(algorithm ?? key.algorithm), toBeSigned);
        },
        verify: ({ key, sign1 }) =>
          verifyWithCoseKey(key, algorithmNameOf(sign1.signatureAlgorithmName), sign1.toBeSigned, sign1.signature),
      },
      mac0: {
        sign: ({ key, toBeAuthenticated }) => hmacOf(key, toBeAuthenticated),
        verify: ({ mac0, key }) => {
          const expected = hmacOf(key, mac0.toBeAuthenticated);
          return expected.length === mac0.tag.length && timingSafeEqual(expected, mac0.tag);
        },
      },
    },
    x509: {
      getIssuerNameField: ({ certificate, field }) => new x509.X509Certificate(certificate).issuerName.getField(field),
      getPublicKey: async ({ certificate }) => {
        const publicKey = await new x509.X509Certificate(certificate).publicKey.export();
        const jwk = await webcrypto.subtle.exportKey("jwk", publicKey);
        return CoseKey.fromJwk(jwk as Record<string, unknown>);
      },
      verifyCertificateChain,
      getCertificateData: async ({ certificate }) => {
        const parsed = new x509.X509Certificate(certificate);
        const thumbprint = Buffer.from(
          await parsed.getThumbprint(webcrypto as ReturnType<typeof x509.cryptoProvider.get>),
        ).toString("hex");
        return {
          issuerName: parsed.issuerName.toString(),
          subjectName: parsed.subjectName.toString(),
          serialNumber: parsed.serialNumber,
          thumbprint,
          notBefore: parsed.notBefore,
          notAfter: parsed.notAfter,
          pem: parsed.toString("pem"),
        };
      },
    },
  };
}
