import { type Certificate, SdJwtVerificationError, type VerifiedX5cChain, verifyX5cChain } from "@attesto/protocol";
import { failed } from "../checks/check.js";
import type { KeyLookup } from "./key-lookup.js";

/**
 * Whether the leaf certificate names `iss` (SD-JWT VC draft, HAIP): a uniformResourceIdentifier
 * SAN equal to `iss`; or, only when the leaf has no URI SAN, a dNSName SAN equal to `iss`'s host.
 * A URI SAN pins the issuer's path too, so a certificate for one issuer on a shared host cannot
 * speak for another issuer on that host.
 */
export function leafNamesIssuer(chain: VerifiedX5cChain, iss: string): boolean {
  const { uris, dnsNames } = chain.leafSubjectAltNames;
  if (uris.length > 0) return uris.includes(iss);
  const host = new URL(iss).hostname.toLowerCase();
  return dnsNames.some((name) => name.toLowerCase() === host);
}

/**
 * An http(s) `iss` with `x5c`: the chain is validated up to a trust anchor (each certificate
 * signed by the next, CAs, validity periods) and its leaf must name `iss` in its subjectAltName.
 */
export async function issuerKeyOfX5c(
  x5c: unknown,
  iss: string,
  anchors: { certificates: Certificate[]; unavailable: boolean },
  now: Date,
): Promise<KeyLookup> {
  let chain: VerifiedX5cChain;
  try {
    chain = await verifyX5cChain(x5c, anchors.certificates, now);
  } catch (error) {
    if (!(error instanceof SdJwtVerificationError)) throw error;
    if (error.code === "untrusted_certificate_chain" && anchors.unavailable) {
      return { outcome: failed("trust_anchors_unavailable", "the platform trust anchors could not be loaded") };
    }
    return { outcome: failed(error.code, error.message) };
  }
  if (!leafNamesIssuer(chain, iss)) {
    return {
      outcome: failed(
        "x5c_san_mismatch",
        "the x5c leaf certificate's subjectAltName does not name the credential's iss",
      ),
    };
  }
  return { jwk: chain.leafPublicJwk, binding: "x5c", chain };
}
