// reflect-metadata must be loaded before @peculiar/x509, which throws at import otherwise.
import "reflect-metadata";
import { createPublicKey, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { SdJwtVerificationError } from "./sd-jwt-verification-error.js";
import { type ValidatedX5cChain, x5cChainCache } from "./x5c-chain-cache.js";
import type { Certificate, VerifiedX5cChain } from "./x5c-chain-types.js";

export type { Certificate, VerifiedX5cChain } from "./x5c-chain-types.js";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

const fail = (code: string, message: string): never => {
  throw new SdJwtVerificationError(code, message);
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Parses one certificate from standard base64 DER (the `x5c` encoding). */
export function parseBase64DerCertificate(value: string): Certificate {
  if (typeof value !== "string" || !BASE64.test(value)) throw new Error("certificate is not standard base64");
  return new x509.X509Certificate(Buffer.from(value, "base64"));
}

/** Parses every certificate of a PEM bundle; throws when there is none or one is malformed. */
export function parsePemCertificates(pem: string): Certificate[] {
  const blocks = x509.PemConverter.decodeWithHeaders(pem).filter((block) => block.type === "CERTIFICATE");
  if (blocks.length === 0) throw new Error("no CERTIFICATE block found");
  return blocks.map((block) => new x509.X509Certificate(block.rawData));
}

const sameDer = (a: Certificate, b: Certificate) => Buffer.from(a.rawData).equals(Buffer.from(b.rawData));

const isCa = (certificate: Certificate) => certificate.getExtension(x509.BasicConstraintsExtension)?.ca === true;

function assertValidAt(certificate: Certificate, now: Date, role: string): void {
  if (now < certificate.notBefore) fail("certificate_not_yet_valid", `the ${role} certificate is not valid yet`);
  if (now > certificate.notAfter) fail("certificate_expired", `the ${role} certificate has expired`);
}

async function signedBy(certificate: Certificate, issuer: Certificate): Promise<boolean> {
  if (certificate.issuer !== issuer.subject) return false;
  try {
    return await certificate.verify({ publicKey: issuer, signatureOnly: true });
  } catch {
    return false;
  }
}

/** A certificate's uniformResourceIdentifier and dNSName subjectAltNames (none when it has no SAN). */
export function subjectAltNamesOf(certificate: Certificate): { uris: string[]; dnsNames: string[] } {
  const names = certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [];
  return {
    uris: names.filter((name) => name.type === "url").map((name) => name.value),
    dnsNames: names.filter((name) => name.type === "dns").map((name) => name.value),
  };
}

function authorityKeyIdOf(certificate: Certificate): string | undefined {
  const keyId = certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  return keyId ? Buffer.from(keyId, "hex").toString("base64url") : undefined;
}

/**
 * Validates an `x5c` chain (leaf first, standard base64 DER) up to one of `trustAnchors`: each
 * certificate is signed by the next, the last by a trust anchor (an anchor repeated at the end of
 * the chain is tolerated), issuers are CAs, and every certificate, anchor included, is within its
 * validity period at `now`. Returns the leaf's public key.
 *
 * A validated chain is remembered (see x5c-chain-cache.ts) for as long as every certificate in it
 * stays valid, keyed by the chain and the anchor set: an issuer signs every credential with the
 * same chain, and validating it costs several signature checks and ASN.1 parsing.
 */
export async function verifyX5cChain(x5c: unknown, trustAnchors: Certificate[], now: Date): Promise<VerifiedX5cChain> {
  if (!Array.isArray(x5c) || x5c.length === 0 || x5c.some((entry) => typeof entry !== "string")) {
    return validateX5cChain(x5c, trustAnchors, now).then((validated) => validated.chain);
  }
  return x5cChainCache.verify(x5c as string[], trustAnchors, now, validateX5cChain);
}

/** verifyX5cChain without the cache, with the window in which its answer holds. */
export async function validateX5cChain(
  x5c: unknown,
  trustAnchors: Certificate[],
  now: Date,
): Promise<ValidatedX5cChain> {
  if (!Array.isArray(x5c) || x5c.length === 0) return fail("x5c_malformed", "x5c must be a non-empty array");
  let chain: Certificate[];
  try {
    chain = x5c.map((entry) => parseBase64DerCertificate(entry as string));
  } catch {
    return fail("x5c_malformed", "x5c holds a certificate that is not standard base64 DER");
  }
  const last = chain[chain.length - 1]!;
  if (chain.length > 1 && trustAnchors.some((anchor) => sameDer(anchor, last))) chain = chain.slice(0, -1);
  const leaf = chain[0]!;
  for (const [index, certificate] of chain.entries()) {
    assertValidAt(certificate, now, index === 0 ? "leaf" : "intermediate");
    const issuer = chain[index + 1];
    if (!issuer) break;
    if (!isCa(issuer)) fail("certificate_chain_invalid", "an intermediate certificate is not a CA");
    if (!(await signedBy(certificate, issuer))) {
      fail("certificate_chain_invalid", "a certificate in x5c is not signed by the next one");
    }
  }
  const top = chain[chain.length - 1]!;
  let anchor: Certificate | undefined;
  for (const candidate of trustAnchors) {
    if (isCa(candidate) && (await signedBy(top, candidate))) {
      anchor = candidate;
      break;
    }
  }
  if (!anchor) {
    const leafIsAnchor = trustAnchors.some((candidate) => sameDer(candidate, leaf));
    if (!leafIsAnchor) return fail("untrusted_certificate_chain", "the x5c chain does not lead to a trusted anchor");
    return fail("certificate_chain_invalid", "the leaf certificate is a trust anchor, not an issuer certificate");
  }
  assertValidAt(anchor, now, "trust anchor");
  let leafPublicJwk: Record<string, unknown>;
  try {
    leafPublicJwk = createPublicKey({ key: Buffer.from(leaf.publicKey.rawData), format: "der", type: "spki" }).export({
      format: "jwk",
    }) as Record<string, unknown>;
  } catch {
    return fail("x5c_malformed", "the leaf certificate's public key cannot be read");
  }
  const authorityKeyIds = [...chain.map(authorityKeyIdOf)].filter((id): id is string => id !== undefined);
  const checked = [...chain, anchor];
  return {
    chain: {
      leafPublicJwk,
      leafSubject: leaf.subject,
      authorityKeyIds,
      anchorSubject: anchor.subject,
      leafSubjectAltNames: subjectAltNamesOf(leaf),
    },
    validFrom: new Date(Math.max(...checked.map((certificate) => certificate.notBefore.getTime()))),
    validUntil: new Date(Math.min(...checked.map((certificate) => certificate.notAfter.getTime()))),
  };
}
