import { verifyJwsSignature } from "@attesto/protocol";
import { issuerKeyOfDidIss } from "../issuer-key/did-issuer-key.js";
import { issuerKeyOfJwtVcIssuer } from "../issuer-key/jwt-vc-issuer-key.js";
import { isHttpIdentifier, type KeyLookup } from "../issuer-key/key-lookup.js";
import { issuerKeyOfX5c } from "../issuer-key/x5c-issuer-key.js";
import { UpstreamUnavailableError } from "../upstream.js";
import {
  failed,
  notEvaluable,
  type PresentationUnderVerification,
  perPresentationCheck,
  success,
  type VerificationContext,
} from "./check.js";

/** Trust anchors of x5c chains: the platform's and configured ones, plus the roots of tenants' imported chains. */
async function x5cAnchors(context: VerificationContext) {
  const { certificates, unavailable } = await context.ports.trustAnchors.anchors();
  try {
    const registered = await context.ports.registeredIssuers.snapshot();
    return { certificates: [...certificates, ...registered.x509Roots], unavailable };
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) return { certificates, unavailable: true };
    throw error;
  }
}

/** The key bound to `iss`, by what `iss` is (see issuerSignatureCheck). */
async function issuerKeyOf(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<KeyLookup> {
  const { header, payload } = presentation.parsed!.issuerJwt;
  const iss = payload.iss;
  if (typeof iss !== "string" || iss === "") {
    return { outcome: failed("issuer_missing", "the credential has no iss: no key can be bound to it") };
  }
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  if (header.kid !== undefined && kid === undefined) {
    return { outcome: failed("issuer_key_unresolvable", "the issuer JWT's kid is not a string") };
  }
  if (iss.startsWith("did:")) return issuerKeyOfDidIss(context.ports.ledger, iss, kid);
  if (!isHttpIdentifier(iss)) {
    return {
      outcome: failed(
        "issuer_unsupported",
        "the credential's iss is neither a DID nor an http(s) URL: no key is bound to it",
      ),
    };
  }
  if (header.x5c !== undefined) return issuerKeyOfX5c(header.x5c, iss, await x5cAnchors(context), context.now);
  return issuerKeyOfJwtVcIssuer(context.ports, iss, kid);
}

/**
 * `issuer_signature`: the issuer-signed JWT verifies with a key bound to its `iss` (SD-JWT VC
 * draft, "Issuer verification key"):
 * - a DID `iss`: an assertionMethod of that DID (did:key locally, did:ledger through the ledger,
 *   deactivated fails); a `kid` of another DID fails;
 * - an http(s) `iss` with `x5c`: the chain validated to a trust anchor, its leaf naming `iss` in a
 *   subjectAltName;
 * - an http(s) `iss` otherwise: the `kid` key of the issuer's JWT VC Issuer Metadata, whose
 *   `issuer` is `iss`;
 * - anything else fails. The verified identity is recorded for the checks after it.
 */
export const issuerSignatureCheck = perPresentationCheck("issuer_signature", async (presentation, context) => {
  const parsed = presentation.parsed;
  if (!parsed) return notEvaluable();
  const lookup = await issuerKeyOf(presentation, context);
  if ("outcome" in lookup) return lookup.outcome;
  if (!(await verifyJwsSignature(parsed.issuerJwt.compact, lookup.jwk))) {
    return failed("signature_invalid", "the issuer signature does not verify with the key bound to iss");
  }
  presentation.issuer = {
    iss: parsed.issuerJwt.payload.iss as string,
    binding: lookup.binding,
    ...(lookup.did ? { did: lookup.did } : {}),
    ...(lookup.chain ? { chain: lookup.chain } : {}),
    signatureVerified: true,
  };
  const via = {
    did: "its DID",
    x5c: "its x5c chain",
    jwt_vc_issuer_metadata: "its JWT VC Issuer Metadata",
  }[lookup.binding];
  return success("valid", `the issuer signature verifies with the key of ${via}`);
});
