import { DeviceResponse, type Document, type IssuerSignedItem } from "@owf/mdoc";
import { mdocValueToJson } from "./decode-issuer-signed.js";
import { MdocVerificationError } from "./mdoc-verification-error.js";

/** Issuer signature algorithms accepted on an MSO (HAIP: ES256 at least). */
export const MDOC_ISSUER_ALGORITHMS = ["ES256", "ES384", "ES512", "EdDSA"] as const;

/** One issuer-signed data element as presented (its digest not yet checked). */
export interface PresentedMdocElement {
  namespace: string;
  identifier: string;
  /** The value as JSON (mdocValueToJson). */
  value: unknown;
  digestId: number;
  item: IssuerSignedItem;
}

/** A presented mdoc, decoded: what the verification checks read. */
export interface ParsedMdocPresentation {
  /** The Document's docType. */
  docType: string;
  /** The docType the issuer signed in the MSO. */
  msoDocType: string;
  /** The issuer's certificate chain from the COSE x5chain header, standard base64 DER, leaf first. */
  x5chain: string[];
  issuerAlgorithm: string;
  validity: { signed: Date; validFrom: Date; validUntil: Date; expectedUpdate?: Date };
  elements: PresentedMdocElement[];
  /** The holder's key from the MSO's deviceKeyInfo, as a public JWK. */
  deviceKeyJwk: Record<string, unknown>;
  /** The MSO's `status` member as JSON (a Token Status List reference), when there is one. */
  status: unknown;
  /** The library's Document (device authentication verifies over it). */
  document: Document;
}

const fail = (code: string, message: string, cause?: unknown): never => {
  throw new MdocVerificationError(code, message, cause === undefined ? undefined : { cause });
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodeDeviceResponse(encoded: unknown): DeviceResponse {
  if (typeof encoded !== "string" || !BASE64URL.test(encoded)) {
    return fail("malformed_device_response", "the presentation is not a base64url DeviceResponse");
  }
  try {
    return DeviceResponse.fromEncodedForOid4Vp(encoded);
  } catch (error) {
    return fail("malformed_device_response", "the presentation is not a CBOR DeviceResponse (ISO/IEC 18013-5)", error);
  }
}

function readDocument(document: Document): ParsedMdocPresentation {
  const issuerAuth = document.issuerSigned.issuerAuth;
  const mso = issuerAuth.mobileSecurityObject;
  const algorithm = issuerAuth.signatureAlgorithmName;
  if (!(MDOC_ISSUER_ALGORITHMS as readonly string[]).includes(algorithm)) {
    fail(
      "alg_not_allowed",
      `the MSO is signed with an algorithm not accepted here (${MDOC_ISSUER_ALGORITHMS.join(", ")})`,
    );
  }
  const x5chain = (issuerAuth.x5chain ?? []).map((der) => Buffer.from(der).toString("base64"));
  if (x5chain.length === 0) fail("x5chain_missing", "the MSO's COSE_Sign1 carries no x5chain");
  const elements: PresentedMdocElement[] = [];
  for (const [namespace, items] of document.issuerSigned.issuerNamespaces?.issuerNamespaces ?? new Map()) {
    for (const item of items) {
      elements.push({
        namespace,
        identifier: item.elementIdentifier,
        value: mdocValueToJson(item.elementValue),
        digestId: item.digestId,
        item,
      });
    }
  }
  const seen = new Set<string>();
  for (const { namespace, identifier } of elements) {
    const key = `${namespace}\u0000${identifier}`;
    if (seen.has(key))
      fail("duplicate_element", `element '${identifier}' of namespace '${namespace}' is presented twice`);
    seen.add(key);
  }
  const { signed, validFrom, validUntil, expectedUpdate } = mso.validityInfo;
  const deviceKey = mso.deviceKeyInfo.deviceKey;
  const { kty, crv, x, y } = deviceKey.jwk as Record<string, unknown>;
  const statusMember = (mso as unknown as { structure: { get(key: string): unknown } }).structure.get("status");
  return {
    docType: document.docType,
    msoDocType: mso.docType,
    x5chain,
    issuerAlgorithm: algorithm,
    validity: { signed, validFrom, validUntil, ...(expectedUpdate ? { expectedUpdate } : {}) },
    elements,
    deviceKeyJwk: { kty, crv, x, ...(y === undefined ? {} : { y }) },
    status: statusMember === undefined ? undefined : mdocValueToJson(statusMember),
    document,
  };
}

/**
 * The presentation of an `mso_mdoc` credential query (OID4VP 1.0 Appendix B.2): a base64url
 * DeviceResponse (ISO/IEC 18013-5) with status 0 and exactly one document, whose IssuerSigned
 * holds the MSO (COSE_Sign1 with an x5chain and an accepted algorithm) and the disclosed elements.
 * Nothing is verified here: signatures, digests, validity and device authentication are checked
 * by the verify* functions.
 */
export function parseDeviceResponse(encoded: unknown): ParsedMdocPresentation {
  const response = decodeDeviceResponse(encoded);
  if (response.status !== 0) fail("device_response_error", "the DeviceResponse reports an error status");
  const documents = response.documents ?? [];
  if (documents.length !== 1) {
    fail("document_count", `a presentation must hold exactly one document, this one holds ${documents.length}`);
  }
  try {
    return readDocument(documents[0]!);
  } catch (error) {
    if (error instanceof MdocVerificationError) throw error;
    return fail("malformed_mso", "the document's IssuerSigned or MSO is malformed", error);
  }
}
