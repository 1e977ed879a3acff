import { CoseKey } from "@owf/mdoc";
import { createMdocContext } from "./mdoc-context.js";
import { MdocVerificationError } from "./mdoc-verification-error.js";
import type { ParsedMdocPresentation } from "./parse-device-response.js";

const coseKeyOf = (jwk: Record<string, unknown>) => CoseKey.fromJwk(jwk as never);

/** Whether the MSO's COSE_Sign1 (issuerAuth) verifies with `issuerPublicJwk` (the validated x5chain leaf's key). */
export async function verifyMdocIssuerSignature(
  presentation: ParsedMdocPresentation,
  issuerPublicJwk: Record<string, unknown>,
): Promise<boolean> {
  const issuerAuth = presentation.document.issuerSigned.issuerAuth;
  if (!issuerAuth.payload) return false;
  try {
    return await issuerAuth.verifySignature({ key: coseKeyOf(issuerPublicJwk) }, createMdocContext());
  } catch {
    return false;
  }
}

/**
 * Every presented element is the one the issuer signed (ISO/IEC 18013-5 §9.3.1): the digest of its
 * IssuerSignedItemBytes, with the MSO's digest algorithm, equals the MSO's valueDigests entry for
 * its namespace and digestID. Throws `element_not_in_mso` when the MSO has no digest for it and
 * `digest_mismatch` when the digest differs (a changed value, identifier or salt).
 */
export async function verifyMdocElementDigests(presentation: ParsedMdocPresentation): Promise<void> {
  const issuerAuth = presentation.document.issuerSigned.issuerAuth;
  const mso = issuerAuth.mobileSecurityObject;
  for (const element of presentation.elements) {
    const expected = mso.valueDigests.valueDigests.get(element.namespace)?.get(element.digestId);
    if (expected === undefined) {
      throw new MdocVerificationError(
        "element_not_in_mso",
        `element '${element.identifier}' of namespace '${element.namespace}' has no digest in the MSO`,
      );
    }
    if (!(await element.item.isValid(element.namespace, issuerAuth, createMdocContext()))) {
      throw new MdocVerificationError(
        "digest_mismatch",
        `element '${element.identifier}' of namespace '${element.namespace}' does not match its digest in the MSO`,
      );
    }
  }
}
