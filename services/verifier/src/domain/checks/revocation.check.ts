import { type StatusListEntryReference, StatusListTokenError, statusListReferenceOf } from "@attesto/protocol";
import { credentialStatusOf } from "../credential-status/credential-status.js";
import {
  type CheckOutcome,
  failed,
  notEvaluable,
  perPresentationCheck,
  skipped,
  success,
  type VerificationContext,
} from "./check.js";

/** A status that cannot be stated fails, unless a verifier policy of the tenant accepts it (acceptUnknownStatus). */
function statusUnknown(reason: string, context: VerificationContext): CheckOutcome {
  const tolerant = context.policies.find(({ policy }) => policy.acceptUnknownStatus);
  if (tolerant) {
    return skipped(
      "status_unknown",
      `${reason}; accepted by verifier policy '${tolerant.policy.name}' (acceptUnknownStatus)`,
    );
  }
  return failed("status_unknown", reason);
}

/**
 * `revocation`: the credential's status in its issuer's Token Status List (any issuer, see
 * credentialStatusOf). `valid` succeeds; `revoked` and `suspended` fail; `status_unknown` (the list
 * unreachable or invalid, signed by a key not bound to the credential's issuer, the index beyond
 * it, an unassigned status value) fails unless a policy accepts it; a credential without a
 * `status.status_list` claim is skipped (`no_status`).
 */
export const revocationCheck = perPresentationCheck("revocation", async (presentation, context) => {
  const { parsed, issuer, mdoc } = presentation;
  if (!parsed && !mdoc) return notEvaluable();
  let reference: StatusListEntryReference | undefined;
  try {
    // An mdoc's MSO carries the same reference (`status: {status_list: {idx, uri}}`) in CBOR.
    reference = statusListReferenceOf(mdoc ? { status: mdoc.status as never } : parsed!.issuerJwt.payload);
  } catch (error) {
    if (error instanceof StatusListTokenError) return statusUnknown(error.message, context);
    throw error;
  }
  if (!reference) {
    return skipped("no_status", "the credential has no status_list claim: its issuer publishes no status for it");
  }
  if (!issuer?.signatureVerified) {
    return skipped("not_evaluable", "the issuer could not be verified (see issuer_signature)");
  }
  const status = await credentialStatusOf({ ...presentation, issuer }, reference, context);
  switch (status.state) {
    case "valid":
      return success("valid", "the issuer's status list gives the credential the status VALID");
    case "revoked":
      return failed("revoked", "the credential has been revoked by its issuer");
    case "suspended":
      return failed("suspended", "the credential is suspended by its issuer");
    default:
      return statusUnknown(status.reason, context);
  }
});
