import type { PresentationUnderVerification } from "./checks/index.js";
import { mdocClaimsOf } from "./mdoc/mdoc-checks.js";
import type { CredentialMetadata, PresentationMetadata } from "./verification-session.js";

/**
 * JWT and SD-JWT VC claims that describe the credential rather than its subject: they go to
 * `credential_metadata` (or nowhere), not to `claims`.
 */
const CREDENTIAL_CLAIMS = new Set(["iss", "iat", "nbf", "exp", "vct", "vct#integrity", "cnf", "status", "_sd_alg"]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Deep merge where the first credential wins a conflict (claims of several credentials, flat). The
 * sources are never written to: an object both sides have is copied (one level) before the merge
 * goes into it, so the presentations' parsed claims need no deep copy up front.
 */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing === undefined) target[key] = value;
    else if (isObject(existing) && isObject(value)) {
      const merged = { ...existing };
      mergeInto(merged, value);
      target[key] = merged;
    }
  }
}

const isoOf = (seconds: unknown) =>
  typeof seconds === "number" && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;

/**
 * `presentation_metadata`: `claims` holds only what the holder disclosed (plus claims the issuer
 * left always visible), without the credential-describing claims, merged flat across all
 * presented credentials (the first credential wins a name clash); `credential_metadata` lists
 * each credential's issuer, type (vct), issued_at and expires_at. An mdoc adds its disclosed
 * elements as `{namespace: {element: value}}` and its docType, MSO signed date and validUntil.
 */
export function summarizePresentations(presentations: PresentationUnderVerification[]): PresentationMetadata {
  const claims: Record<string, unknown> = {};
  const credentialMetadata: CredentialMetadata[] = [];
  for (const { parsed, issuer, mdoc } of presentations) {
    if (mdoc) {
      // Disclosed elements by namespace, as `claims.<namespace>.<element>`.
      mergeInto(claims, structuredClone(mdocClaimsOf(mdoc)));
      credentialMetadata.push({
        issuer: issuer?.signatureVerified ? issuer.iss : "",
        credential_type: [mdoc.msoDocType],
        issued_at: mdoc.validity.signed.toISOString(),
        expires_at: mdoc.validity.validUntil.toISOString(),
      });
      continue;
    }
    if (!parsed) continue;
    const subjectClaims = Object.fromEntries(
      Object.entries(parsed.claims).filter(([name]) => !CREDENTIAL_CLAIMS.has(name)),
    );
    mergeInto(claims, subjectClaims);
    const { vct, iat, exp } = parsed.claims;
    credentialMetadata.push({
      // Only the identity issuer_signature verified (the key bound to iss); never an unverified claim.
      issuer: issuer?.signatureVerified ? issuer.iss : "",
      credential_type: typeof vct === "string" ? [vct] : [],
      issued_at: isoOf(iat),
      expires_at: isoOf(exp),
    });
  }
  return { claims, credential_metadata: credentialMetadata };
}
