import type { VerificationCheck } from "./check.js";
import { credentialTypeCheck } from "./credential-type.check.js";
import { dcqlCheck } from "./dcql.check.js";
import { holderBindingCheck } from "./holder-binding.check.js";
import { issuerSignatureCheck } from "./issuer-signature.check.js";
import { issuerTrustCheck } from "./issuer-trust.check.js";
import { policyAcceptedVctCheck } from "./policy-accepted-vct.check.js";
import { policyRequiredClaimsCheck } from "./policy-required-claims.check.js";
import { policyTrustedIssuerCheck } from "./policy-trusted-issuer.check.js";
import { revocationCheck } from "./revocation.check.js";
import { sdJwtStructureCheck } from "./sd-jwt-structure.check.js";
import { trustedAuthoritiesCheck } from "./trusted-authorities.check.js";
import { validityCheck } from "./validity.check.js";
import { vctCheck } from "./vct.check.js";

/**
 * The verification pipeline, in order. Names and reason codes are a contract (README.md); a
 * check reads what earlier ones established (the parsed SD-JWT, the issuer identity).
 */
export const VERIFICATION_CHECKS: readonly VerificationCheck[] = [
  sdJwtStructureCheck,
  issuerSignatureCheck,
  issuerTrustCheck,
  credentialTypeCheck,
  vctCheck,
  validityCheck,
  holderBindingCheck,
  dcqlCheck,
  trustedAuthoritiesCheck,
  revocationCheck,
];

/** The checks of a tenant's verifier policies, run after `trusted_authorities` (before `revocation`). */
export const POLICY_CHECKS: readonly VerificationCheck[] = [
  policyTrustedIssuerCheck,
  policyAcceptedVctCheck,
  policyRequiredClaimsCheck,
];

/** The pipeline for a session: the policy checks only when its tenant has a verifier policy. */
export function verificationChecksFor(hasPolicy: boolean): readonly VerificationCheck[] {
  if (!hasPolicy) return VERIFICATION_CHECKS;
  const at = VERIFICATION_CHECKS.indexOf(revocationCheck);
  return [...VERIFICATION_CHECKS.slice(0, at), ...POLICY_CHECKS, ...VERIFICATION_CHECKS.slice(at)];
}

export type { CheckOutcome, PresentationUnderVerification, VerificationCheck, VerificationContext } from "./check.js";
