import {
  isJsonObject,
  KeyFormatError,
  publicJwkFromDidKey,
  SdJwtVerificationError,
  verifyJwsSignature,
  verifyX5cChain,
} from "@attesto/protocol";
import { UpstreamUnavailableError } from "../upstream.js";
import {
  type CheckOutcome,
  failed,
  notEvaluable,
  type PresentationUnderVerification,
  perPresentationCheck,
  success,
  type VerificationContext,
} from "./check.js";

type KeyLookup = { jwk: Record<string, unknown> } | { outcome: CheckOutcome };

const didOf = (didUrl: string) => didUrl.split("#")[0] ?? didUrl;

/** The verification method a DID URL names in a DID document (absolute or `#fragment` ids). */
function verificationMethodJwk(document: Record<string, unknown>, did: string, didUrl: string | undefined): KeyLookup {
  const methods = Array.isArray(document.verificationMethod) ? document.verificationMethod.filter(isJsonObject) : [];
  const absolute = (id: unknown) => (typeof id === "string" && id.startsWith("#") ? `${did}${id}` : id);
  const assertion = Array.isArray(document.assertionMethod)
    ? document.assertionMethod.map((entry) => absolute(isJsonObject(entry) ? entry.id : entry))
    : undefined;
  const wanted = didUrl ?? (assertion?.find((id) => typeof id === "string") as string | undefined);
  const method = wanted ? methods.find((m) => absolute(m.id) === wanted) : methods[0];
  if (!method || !isJsonObject(method.publicKeyJwk)) {
    return { outcome: failed("issuer_key_not_found", "the issuer DID document has no key for the JWT's kid") };
  }
  if (assertion && !assertion.includes(absolute(method.id))) {
    return { outcome: failed("issuer_key_not_authorized", "the issuer key is not an assertionMethod of its DID") };
  }
  return { jwk: method.publicKeyJwk };
}

async function didKey(did: string, didUrl: string | undefined, context: VerificationContext): Promise<KeyLookup> {
  if (did.startsWith("did:key:")) {
    try {
      return { jwk: publicJwkFromDidKey(did) as unknown as Record<string, unknown> };
    } catch (error) {
      if (error instanceof KeyFormatError)
        return { outcome: failed("issuer_key_not_found", "the issuer did:key is not decodable") };
      throw error;
    }
  }
  if (!did.startsWith("did:ledger:")) {
    return { outcome: failed("unsupported_did_method", "issuer DIDs must be did:ledger or did:key") };
  }
  let resolution: Awaited<ReturnType<VerificationContext["ports"]["ledger"]["resolve"]>>;
  try {
    resolution = await context.ports.ledger.resolve(did);
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      return {
        outcome: failed("issuer_resolution_unavailable", "the ledger could not be reached to resolve the issuer DID"),
      };
    }
    throw error;
  }
  if (!resolution.found) return { outcome: failed("issuer_did_not_found", "the issuer DID is not on the ledger") };
  if (resolution.deactivated) return { outcome: failed("issuer_did_deactivated", "the issuer DID is deactivated") };
  return verificationMethodJwk(resolution.document, did, didUrl);
}

/** The issuer key of the DID path: `kid` (a DID URL, or `#fragment` relative to a DID `iss`) or a DID `iss`. */
async function issuerKeyByDid(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<KeyLookup> {
  const { header, payload } = presentation.parsed!.issuerJwt;
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const iss = typeof payload.iss === "string" ? payload.iss : undefined;
  let didUrl: string | undefined;
  if (kid?.startsWith("did:")) didUrl = kid;
  else if (kid?.startsWith("#") && iss?.startsWith("did:")) didUrl = `${iss}${kid}`;
  const did = didUrl ? didOf(didUrl) : iss?.startsWith("did:") ? didOf(iss) : undefined;
  if (!did) {
    return {
      outcome: failed("issuer_key_unresolvable", "the issuer JWT has neither an x5c chain nor a DID kid or iss"),
    };
  }
  if (iss?.startsWith("did:") && didOf(iss) !== did) {
    return { outcome: failed("issuer_mismatch", "the kid's DID is not the credential's iss") };
  }
  presentation.issuer = { did, signatureVerified: false };
  return didKey(did, didUrl, context);
}

/** The issuer key of the X.509 path: the leaf of an `x5c` chain validated up to the trust anchors. */
async function issuerKeyByX5c(
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<KeyLookup> {
  const { certificates, unavailable } = await context.ports.trustAnchors.anchors();
  try {
    const chain = await verifyX5cChain(presentation.parsed!.issuerJwt.header.x5c, certificates, context.now);
    presentation.issuer = { chain, signatureVerified: false };
    return { jwk: chain.leafPublicJwk };
  } catch (error) {
    if (!(error instanceof SdJwtVerificationError)) throw error;
    if (error.code === "untrusted_certificate_chain" && unavailable) {
      return { outcome: failed("trust_anchors_unavailable", "the platform trust anchors could not be loaded") };
    }
    return { outcome: failed(error.code, error.message) };
  }
}

/**
 * `issuer_signature`: the issuer-signed JWT verifies with the issuer's key. The key comes from the
 * `x5c` chain (validated to the platform root CAs and TRUSTED_X509_ROOTS_PEM, validity periods
 * included) or from the DID in `kid`/`iss`: did:ledger through the ledger (a deactivated DID
 * fails), did:key locally.
 */
export const issuerSignatureCheck = perPresentationCheck("issuer_signature", async (presentation, context) => {
  const parsed = presentation.parsed;
  if (!parsed) return notEvaluable();
  const lookup =
    parsed.issuerJwt.header.x5c !== undefined
      ? await issuerKeyByX5c(presentation, context)
      : await issuerKeyByDid(presentation, context);
  if ("outcome" in lookup) return lookup.outcome;
  if (!(await verifyJwsSignature(parsed.issuerJwt.compact, lookup.jwk))) {
    return failed("signature_invalid", "the issuer signature does not verify with the issuer key");
  }
  presentation.issuer = { ...presentation.issuer, signatureVerified: true };
  const via = presentation.issuer.chain ? "its x5c chain" : "its DID";
  return success("valid", `the issuer signature verifies with the key of ${via}`);
});
