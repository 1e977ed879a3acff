import { SdJwtVerificationError, type VerifiedX5cChain, verifyX5cChain } from "@attesto/protocol";
import { MdocVerificationError, verifyMdocElementDigests, verifyMdocIssuerSignature } from "@attesto/protocol/mdoc";
import {
  type CheckOutcome,
  failed,
  type PresentationUnderVerification,
  success,
  type VerificationContext,
} from "../checks/check.js";
import { x5cAnchors } from "../issuer-key/issuer-key-of.js";

/**
 * The name an mdoc issuer goes by in results: its document signer certificate's first
 * uniformResourceIdentifier subjectAltName (Attesto's issuers name their issuer URL there), else
 * the certificate's subject DN. An mdoc has no `iss`: the issuer is its certificate chain.
 */
export const mdocIssuerNameOf = (chain: VerifiedX5cChain) => chain.leafSubjectAltNames.uris[0] ?? chain.leafSubject;

/**
 * `issuer_signature` of an mdoc (ISO/IEC 18013-5 §9.3): the MSO's x5chain is validated up to a trust
 * anchor exactly as an SD-JWT `x5c` is (the platform root CAs, the roots of certificates tenants
 * imported, TRUSTED_X509_ROOTS_PEM, the tenant's policy roots; each certificate signed by the next,
 * CAs, validity periods), the COSE_Sign1 verifies with the leaf's key, and every presented element
 * matches its digest in the MSO (`digest_mismatch`, `element_not_in_mso`).
 */
export async function verifyMdocIssuer(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<CheckOutcome> {
  const mdoc = presentation.mdoc!;
  const anchors = await x5cAnchors(context);
  let chain: VerifiedX5cChain;
  try {
    chain = await verifyX5cChain(mdoc.x5chain, anchors.certificates, context.now);
  } catch (error) {
    if (!(error instanceof SdJwtVerificationError)) throw error;
    if (error.code === "untrusted_certificate_chain" && anchors.unavailable) {
      return failed("trust_anchors_unavailable", "the platform trust anchors could not be loaded");
    }
    return failed(error.code, error.message);
  }
  if (!(await verifyMdocIssuerSignature(mdoc, chain.leafPublicJwk))) {
    return failed("signature_invalid", "the MSO signature does not verify with the key of its x5chain");
  }
  try {
    await verifyMdocElementDigests(mdoc);
  } catch (error) {
    if (error instanceof MdocVerificationError) return failed(error.code, error.message);
    throw error;
  }
  presentation.issuer = {
    iss: mdocIssuerNameOf(chain),
    binding: "x5c",
    chain,
    x5c: mdoc.x5chain,
    signatureVerified: true,
  };
  return success(
    "valid",
    "the MSO signature verifies with the key of its x5chain and every element matches its digest",
  );
}
