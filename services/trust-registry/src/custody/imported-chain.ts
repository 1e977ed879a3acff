import { createHash, createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { AppError, badRequest } from "@attesto/runtime/errors";
import { spkiOf } from "./certificate-tools.js";
import { describeSubjectAltNames, type IssuerNames, namesIssuer } from "./issuer-names.js";
import { x509 } from "./x509.js";

/** Longest chain accepted (leaf, intermediates, root). */
const MAX_IMPORTED_CHAIN_LENGTH = 10;

/** A tenant's own signing certificate chain with its key, checked and ready to hold. */
export interface ImportedChain {
  /** Every certificate as given, standard base64 DER, leaf first (identity of the import). */
  chain: string[];
  /** What `x5c` carries: the chain without a trailing self-signed root. */
  x5c: string[];
  /** The trailing self-signed root, standard base64 DER; "" when the chain has none. */
  trustAnchor: string;
  /** SHA-256 of the leaf's DER, lowercase hex. */
  fingerprint: string;
  notAfter: Date;
  privateKey: KeyObject;
}

const P256 = "prime256v1";

function parseCertificate(der: Uint8Array, index: number): X509Certificate {
  try {
    return new X509Certificate(Buffer.from(der));
  } catch {
    throw badRequest(`chain[${index}] is not a DER X.509 certificate`);
  }
}

function parsePrivateKey(pem: string): KeyObject {
  if (!pem.includes("-----BEGIN")) throw badRequest("private_key_pem is not a PEM private key");
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw badRequest("private_key_pem is not an unencrypted PKCS#8 or SEC1 PEM private key");
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== P256) {
    throw badRequest("private_key_pem is not a P-256 (ES256) key");
  }
  return key;
}

const isSelfSigned = (certificate: X509Certificate) =>
  certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey);

function assertLeafAllowsSigning(leaf: x509.X509Certificate) {
  const usage = leaf.getExtension(x509.KeyUsagesExtension);
  if (usage && (usage.usages & x509.KeyUsageFlags.digitalSignature) === 0) {
    throw badRequest("the leaf certificate's keyUsage does not allow digitalSignature");
  }
}

/** Machine code (`attesto-error-code` on the wire) of a leaf whose subjectAltName does not name the tenant's `iss`. */
export const CERTIFICATE_NAME_MISMATCH = "certificate_name_mismatch";

/** The leaf must name the tenant's `iss` as a URI SAN, or verifiers following the SD-JWT VC draft refuse its credentials. */
export function assertLeafNamesIssuer(leaf: x509.X509Certificate, names: IssuerNames, status: 400 | 410): void {
  if (namesIssuer(leaf, names)) return;
  throw new AppError(
    status,
    CERTIFICATE_NAME_MISMATCH,
    `the leaf certificate's subjectAltName must contain the tenant's credential issuer identifier as a URI (URI:${names.uri}; HAIP verifiers also match DNS:${names.host}); it has ${describeSubjectAltNames(leaf)}`,
  );
}

/**
 * Checks a tenant's chain and key: at most MAX_IMPORTED_CHAIN_LENGTH certificates, leaf first, each
 * issued and signed by the next (which must be a CA), all valid at `now`; the leaf holds a P-256
 * key, allows digitalSignature when it has a keyUsage, names the tenant's `iss` as a URI SAN (when
 * `names` is given: an issuer's chain; a verifier's names no issuer), and is the public half of the
 * private key. Every message names the fault and never echoes key material.
 */
export function checkImportedChain(
  chainDer: readonly Uint8Array[],
  privateKeyPem: string,
  now: Date,
  names: IssuerNames | undefined,
): ImportedChain {
  if (chainDer.length === 0) throw badRequest("chain is required (DER certificates, leaf first)");
  if (chainDer.length > MAX_IMPORTED_CHAIN_LENGTH) {
    throw badRequest(`chain has more than ${MAX_IMPORTED_CHAIN_LENGTH} certificates`);
  }
  const certificates = chainDer.map(parseCertificate);
  const leaf = certificates[0] as X509Certificate;
  if (leaf.publicKey.asymmetricKeyType !== "ec" || leaf.publicKey.asymmetricKeyDetails?.namedCurve !== P256) {
    throw badRequest("the leaf certificate's key is not P-256 (ES256)");
  }
  const parsedLeaf = new x509.X509Certificate(chainDer[0] as Uint8Array);
  assertLeafAllowsSigning(parsedLeaf);
  certificates.forEach((certificate, index) => {
    const notBefore = new Date(certificate.validFrom);
    const notAfter = new Date(certificate.validTo);
    if (now < notBefore) throw badRequest(`chain[${index}] is not valid before ${notBefore.toISOString()}`);
    if (now > notAfter) throw badRequest(`chain[${index}] expired at ${notAfter.toISOString()}`);
    const issuer = certificates[index + 1];
    if (!issuer) return;
    if (!issuer.ca) throw badRequest(`chain[${index + 1}] is not a CA certificate`);
    if (!certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey)) {
      throw badRequest(`chain[${index}] is not issued by chain[${index + 1}] (leaf first, each certified by the next)`);
    }
  });

  const privateKey = parsePrivateKey(privateKeyPem);
  if (!spkiOf(privateKey).equals(spkiOf(leaf.publicKey))) {
    throw badRequest("private_key_pem does not match the leaf certificate's public key");
  }
  if (names) assertLeafNamesIssuer(parsedLeaf, names, 400);

  const chain = chainDer.map((der) => Buffer.from(der).toString("base64"));
  const last = certificates.at(-1) as X509Certificate;
  const rootIncluded = certificates.length > 1 && isSelfSigned(last);
  return {
    chain,
    x5c: rootIncluded ? chain.slice(0, -1) : chain,
    trustAnchor: rootIncluded ? (chain.at(-1) as string) : "",
    fingerprint: createHash("sha256").update(leaf.raw).digest("hex"),
    notAfter: new Date(leaf.validTo),
    privateKey,
  };
}
