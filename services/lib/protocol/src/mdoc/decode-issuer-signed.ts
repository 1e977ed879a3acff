import { DateOnly, IssuerSigned } from "@owf/mdoc";
import type { MdocStatusListReference } from "./issue-mdoc.js";

/** A decoded `IssuerSigned` in JSON terms (what a holder stores and lists). */
export interface DecodedMdoc {
  docType: string;
  /** Element values per namespace in JSON form (see `mdocValueToJson`). */
  namespaces: Record<string, Record<string, unknown>>;
  validity: { signed: string; validFrom: string; validUntil: string; expectedUpdate?: string };
  /** The MSO's Token Status List reference, when it has one. */
  status?: MdocStatusListReference;
  /** `deviceKeyInfo.deviceKey` as a public JWK: the key device authentication must be made with. */
  deviceKey: Record<string, unknown>;
  digestAlgorithm: string;
  /** `x5chain` of `issuerAuth`, DER, leaf first. */
  x5chain: Uint8Array[];
}

/** Thrown when the input is not a well-formed base64url `IssuerSigned`; its message never echoes input. */
export class MdocFormatError extends Error {
  constructor(message = "not a well-formed mdoc IssuerSigned") {
    super(message);
    this.name = "MdocFormatError";
  }
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A CBOR element value in JSON form: bstr as base64url text, full-date (tag 1004) as `YYYY-MM-DD`,
 * tdate (tag 0) as an ISO 8601 date-time, maps as objects, arrays element by element.
 */
export function mdocValueToJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64url");
  if (value instanceof DateOnly) return value.toISOString();
  if (value instanceof Date) return `${value.toISOString().split(".")[0]}Z`;
  if (value instanceof Map) {
    return Object.fromEntries([...value.entries()].map(([key, item]) => [String(key), mdocValueToJson(item)]));
  }
  if (Array.isArray(value)) return value.map(mdocValueToJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mdocValueToJson(item)]));
  }
  return value;
}

function statusOf(mso: { decodedStructure: { get(key: string): unknown } }): MdocStatusListReference | undefined {
  const status = mso.decodedStructure.get("status");
  const list = status instanceof Map ? status.get("status_list") : undefined;
  if (!(list instanceof Map)) return undefined;
  const idx = list.get("idx");
  const uri = list.get("uri");
  return typeof idx === "number" && typeof uri === "string" ? { idx, uri } : undefined;
}

/** Parses an `IssuerSigned` (base64url CBOR, as OID4VCI delivers it) without checking signatures. */
export function parseIssuerSigned(encoded: string): IssuerSigned {
  if (typeof encoded !== "string" || !BASE64URL.test(encoded)) throw new MdocFormatError();
  try {
    const issuerSigned = IssuerSigned.fromEncodedForOid4Vci(encoded);
    void issuerSigned.issuerAuth.mobileSecurityObject;
    return issuerSigned;
  } catch {
    throw new MdocFormatError();
  }
}

/** Decodes an `IssuerSigned` into JSON terms; signatures and digests are not checked here. */
export function decodeIssuerSigned(encoded: string): DecodedMdoc {
  const issuerSigned = parseIssuerSigned(encoded);
  try {
    const { issuerAuth } = issuerSigned;
    const mso = issuerAuth.mobileSecurityObject;
    const namespaces: Record<string, Record<string, unknown>> = {};
    for (const [namespace, items] of issuerSigned.issuerNamespaces.issuerNamespaces) {
      namespaces[namespace] = Object.fromEntries(
        items.map((item) => [item.elementIdentifier, mdocValueToJson(item.elementValue)]),
      );
    }
    const { signed, validFrom, validUntil, expectedUpdate } = mso.validityInfo;
    const status = statusOf(mso);
    const { kty, crv, x, y } = mso.deviceKeyInfo.deviceKey.jwk as Record<string, unknown>;
    return {
      docType: mso.docType,
      namespaces,
      validity: {
        signed: signed.toISOString(),
        validFrom: validFrom.toISOString(),
        validUntil: validUntil.toISOString(),
        ...(expectedUpdate ? { expectedUpdate: expectedUpdate.toISOString() } : {}),
      },
      ...(status ? { status } : {}),
      deviceKey: Object.fromEntries(Object.entries({ kty, crv, x, y }).filter(([, v]) => v !== undefined)),
      digestAlgorithm: mso.digestAlgorithm,
      x5chain: issuerAuth.certificateChain,
    };
  } catch (error) {
    if (error instanceof MdocFormatError) throw error;
    throw new MdocFormatError();
  }
}

/** A full-date element value (CBOR tag 1004), e.g. `birth_date`, from `YYYY-MM-DD`. */
export function mdocFullDate(isoDate: string): DateOnly {
  return new DateOnly(isoDate);
}
