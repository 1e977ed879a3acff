import { createHash, X509Certificate } from "node:crypto";
import { DeviceResponse, Verifier } from "@auth0/mdl";
import { encode as cborEncode, Tag } from "cbor-x";

/**
 * The independent mdoc implementation the tests hold ours against: @auth0/mdl (not the product's
 * @owf/mdoc) as wallet and as verifier, and the OID4VP SessionTranscripts built here from the
 * specification's CDDL with cbor-x. Shared by every suite that checks an mdoc both ways.
 */

/** A DCQL mso_mdoc claim: `path` is `[namespace, element]`. */
export interface MdocClaim {
  path: string[];
  intent_to_retain?: boolean;
}

/** OID4VP 1.0 B.2.6.1: SessionTranscriptBytes of the redirect flows (direct_post, direct_post.jwt). */
export function oid4vpTranscriptBytes(input: {
  clientId: string;
  nonce: string;
  responseUri: string;
  /** RFC 7638 thumbprint (base64url) of the response encryption key, for direct_post.jwt. */
  jwkThumbprint?: string;
}): Buffer {
  const info = cborEncode([
    input.clientId,
    input.nonce,
    input.jwkThumbprint ? Buffer.from(input.jwkThumbprint, "base64url") : null,
    input.responseUri,
  ]);
  return transcriptOf("OpenID4VPHandover", info);
}

/** OID4VP 1.0 B.2.6.2: SessionTranscriptBytes of the Digital Credentials API (dc_api, dc_api.jwt). */
export function dcApiTranscriptBytes(input: { origin: string; nonce: string; jwkThumbprint?: string }): Buffer {
  const info = cborEncode([
    input.origin,
    input.nonce,
    input.jwkThumbprint ? Buffer.from(input.jwkThumbprint, "base64url") : null,
  ]);
  return transcriptOf("OpenID4VPDCAPIHandover", info);
}

/** `[null, null, [name, sha256(info)]]` as a tagged (24) CBOR data item. */
const transcriptOf = (name: string, info: Uint8Array) =>
  cborEncode(new Tag(cborEncode([null, null, [name, createHash("sha256").update(info).digest()]]), 24));

/**
 * The CBOR of a DeviceResponse holding one document around a raw IssuerSigned (what the product's
 * `/credential` returns), written byte by byte: the form @auth0/mdl takes an issued mdoc in.
 */
export function deviceResponseOf(docType: string, issuerSigned: Uint8Array | string): Uint8Array {
  const bytes = typeof issuerSigned === "string" ? Buffer.from(issuerSigned, "base64url") : issuerSigned;
  const head = (major: number, length: number) =>
    length < 24
      ? [(major << 5) | length]
      : length < 256
        ? [(major << 5) | 24, length]
        : [(major << 5) | 25, length >> 8, length & 0xff];
  const text = (value: string) => [...head(3, Buffer.byteLength(value)), ...Buffer.from(value)];
  return new Uint8Array([
    ...head(5, 3),
    ...text("version"),
    ...text("1.0"),
    ...text("documents"),
    ...head(4, 1),
    ...head(5, 2),
    ...text("docType"),
    ...text(docType),
    ...text("issuerSigned"),
    ...bytes,
    ...text("status"),
    0,
  ]);
}

/** The claims of a DCQL mso_mdoc query as @auth0/mdl's presentation definition (its request form). */
function presentationDefinitionOf(docType: string, claims: MdocClaim[]) {
  return {
    id: "dcql",
    input_descriptors: [
      {
        id: docType,
        format: { mso_mdoc: { alg: ["ES256"] } },
        constraints: {
          limit_disclosure: "required",
          fields: claims.map(({ path: [namespace, element], intent_to_retain }) => ({
            path: [`$['${namespace}']['${element}']`],
            intent_to_retain: intent_to_retain ?? false,
          })),
        },
      },
    ],
  };
}

/**
 * @auth0/mdl as the wallet: a base64url DeviceResponse disclosing `claims` of the document in
 * `mdoc` (an encoded MDoc, e.g. `deviceResponseOf(...)`), device-signed (ES256) over `transcript`.
 */
export async function presentWithIndependentWallet(input: {
  mdoc: Uint8Array;
  docType: string;
  claims: MdocClaim[];
  transcript: Uint8Array;
  /** The device key's private JWK (P-256, with d). */
  devicePrivateJwk: object;
}): Promise<string> {
  const response = await DeviceResponse.from(input.mdoc)
    .usingPresentationDefinition(presentationDefinitionOf(input.docType, input.claims) as never)
    .usingSessionTranscriptBytes(Buffer.from(input.transcript))
    .authenticateWithSignature(input.devicePrivateJwk as never, "ES256")
    .sign();
  return Buffer.from(response.encode()).toString("base64url");
}

/** A trust anchor as @auth0/mdl takes it: PEM, from base64 DER (as key custody lists anchors) or PEM. */
export const pemOf = (certificate: string): string =>
  certificate.includes("BEGIN CERTIFICATE")
    ? certificate
    : new X509Certificate(Buffer.from(certificate, "base64")).toString();

/**
 * @auth0/mdl as the verifier of a DeviceResponse (base64url): issuer signature, x5chain to one of
 * `trustAnchors`, digests, validity, device signature over `transcript`. Returns the checks it
 * failed (none when it accepts), those it passed, and the disclosed elements of the first document, by namespace.
 */
export async function verifyWithIndependentVerifier(input: {
  deviceResponse: string;
  trustAnchors: string[];
  transcript: Uint8Array;
}): Promise<{
  failed: Array<{ check: string; reason?: string }>;
  passed: string[];
  elements: Record<string, unknown>;
}> {
  const checks: Array<{ status: string; check: string; reason?: string }> = [];
  const verified = await new Verifier(input.trustAnchors.map(pemOf)).verify(
    Buffer.from(input.deviceResponse, "base64url"),
    { encodedSessionTranscript: Buffer.from(input.transcript), onCheck: (check) => checks.push(check) },
  );
  const [document] = verified.documents;
  const elements: Record<string, unknown> = {};
  for (const namespace of document?.issuerSignedNameSpaces ?? []) {
    elements[namespace] = document!.getIssuerNameSpace(namespace);
  }
  return {
    failed: checks.filter((check) => check.status === "FAILED").map(({ check, reason }) => ({ check, reason })),
    passed: checks.filter((check) => check.status === "PASSED").map(({ check }) => check),
    elements,
  };
}
