import { verifyJwsSignature } from "@attesto/protocol";
import { issuerKeyOf } from "../issuer-key/issuer-key-of.js";
import { verifyMdocIssuer } from "../mdoc/mdoc-issuer.js";
import { failed, notEvaluable, perPresentationCheck, success } from "./check.js";

/**
 * `issuer_signature`: the issuer-signed JWT verifies with a key bound to its `iss` (see
 * issuerKeyOf); for an mdoc, the MSO's signature by its x5chain and every element's digest
 * (verifyMdocIssuer). The verified identity is recorded for the checks after it.
 */
export const issuerSignatureCheck = perPresentationCheck("issuer_signature", async (presentation, context) => {
  if (presentation.mdoc) return verifyMdocIssuer(presentation, context);
  const parsed = presentation.parsed;
  if (!parsed) return notEvaluable();
  const lookup = await issuerKeyOf(parsed.issuerJwt.header, parsed.issuerJwt.payload.iss, context);
  if ("outcome" in lookup) return lookup.outcome;
  if (!(await verifyJwsSignature(parsed.issuerJwt.compact, lookup.jwk))) {
    return failed("signature_invalid", "the issuer signature does not verify with the key bound to iss");
  }
  presentation.issuer = {
    iss: parsed.issuerJwt.payload.iss as string,
    binding: lookup.binding,
    ...(lookup.did ? { did: lookup.did } : {}),
    ...(lookup.chain ? { chain: lookup.chain, x5c: parsed.issuerJwt.header.x5c as string[] } : {}),
    signatureVerified: true,
  };
  const via = {
    did: "its DID",
    x5c: "its x5c chain",
    jwt_vc_issuer_metadata: "its JWT VC Issuer Metadata",
  }[lookup.binding];
  return success("valid", `the issuer signature verifies with the key of ${via}`);
});
