import type { VerificationCheck } from "./check.js";
import { credentialTypeCheck } from "./credential-type.check.js";
import { dcqlCheck } from "./dcql.check.js";
import { holderBindingCheck } from "./holder-binding.check.js";
import { issuerSignatureCheck } from "./issuer-signature.check.js";
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
  credentialTypeCheck,
  vctCheck,
  validityCheck,
  holderBindingCheck,
  dcqlCheck,
  trustedAuthoritiesCheck,
  revocationCheck,
];

export type { CheckOutcome, PresentationUnderVerification, VerificationCheck, VerificationContext } from "./check.js";
