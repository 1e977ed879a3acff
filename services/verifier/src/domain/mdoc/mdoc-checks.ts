import {
  dcApiSessionTranscript,
  type MdocSessionTranscript,
  MdocVerificationError,
  oid4vpSessionTranscript,
  type ParsedMdocPresentation,
  verifyMdocDeviceSignature,
} from "@attesto/protocol/mdoc";
import {
  type CheckOutcome,
  failed,
  type PresentationUnderVerification,
  success,
  type VerificationContext,
} from "../checks/check.js";

/** The SessionTranscript of this response's flow (OID4VP 1.0 B.2.6.1 redirect, B.2.6.2 DC API). */
export function mdocSessionTranscriptOf(context: VerificationContext): Promise<MdocSessionTranscript> {
  const { handover, nonce } = context;
  const jwk = handover.responseEncryptionJwk;
  if (handover.kind === "dc_api") {
    return dcApiSessionTranscript({ origin: handover.origin, nonce, ...(jwk ? { responseEncryptionJwk: jwk } : {}) });
  }
  return oid4vpSessionTranscript({
    clientId: context.clientId,
    nonce,
    responseUri: handover.responseUri,
    ...(jwk ? { responseEncryptionJwk: jwk } : {}),
  });
}

/** `credential_type` of an mdoc: the Document's docType is the one the issuer signed in the MSO. */
export function mdocCredentialType(mdoc: ParsedMdocPresentation): CheckOutcome {
  if (mdoc.docType !== mdoc.msoDocType) {
    return failed("mso_doctype_mismatch", "the document's docType is not the docType its issuer signed in the MSO");
  }
  return success("valid", "the document's docType is the one signed in its MSO");
}

/** `vct` of an mdoc: its docType is the credential query's `meta.doctype_value`. */
export function mdocDoctype({ mdoc, query }: PresentationUnderVerification): CheckOutcome {
  const expected = query?.meta.doctype_value;
  if (expected !== undefined && mdoc!.msoDocType !== expected) {
    return failed("doctype_mismatch", "the mdoc's docType is not the query's doctype_value");
  }
  return success("valid", expected ? "the docType is the query's doctype_value" : "the docType is present");
}

const isTime = (value: unknown): value is Date => value instanceof Date && Number.isFinite(value.getTime());

/** `validity` of an mdoc: the MSO's validityInfo (validFrom, validUntil, signed) at `now`, with CLOCK_SKEW_SECONDS. */
export function mdocValidity(mdoc: ParsedMdocPresentation, { now, limits }: VerificationContext): CheckOutcome {
  const { signed, validFrom, validUntil } = mdoc.validity;
  if (![signed, validFrom, validUntil].every(isTime)) {
    return failed("time_claim_invalid", "the MSO's validityInfo holds an invalid date");
  }
  const skewMs = limits.clockSkewSeconds * 1000;
  const at = now.getTime();
  if (at > validUntil.getTime() + skewMs) return failed("expired", "the MSO has expired (validUntil)");
  if (at < validFrom.getTime() - skewMs) return failed("not_yet_valid", "the MSO is not valid yet (validFrom)");
  if (signed.getTime() > at + skewMs) return failed("issued_in_future", "the MSO's signed date is in the future");
  return success("valid", "the MSO is within its validity period");
}

/** `holder_binding` of an mdoc: the device signature over this flow's SessionTranscript, with the MSO's device key. */
export async function mdocDeviceBinding(
  mdoc: ParsedMdocPresentation,
  context: VerificationContext,
): Promise<CheckOutcome> {
  try {
    await verifyMdocDeviceSignature(mdoc, await mdocSessionTranscriptOf(context));
  } catch (error) {
    if (error instanceof MdocVerificationError) return failed(error.code, error.message);
    throw error;
  }
  return success("valid", "the device signature binds the mdoc to its device key and to this session's transcript");
}

/** The disclosed issuer-signed elements by namespace: `{namespace: {element: value}}`. */
export function mdocClaimsOf(mdoc: ParsedMdocPresentation): Record<string, Record<string, unknown>> {
  const claims: Record<string, Record<string, unknown>> = {};
  for (const { namespace, identifier, value } of mdoc.elements) {
    claims[namespace] ??= {};
    claims[namespace][identifier] = value;
  }
  return claims;
}
