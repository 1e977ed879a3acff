import { SdJwtVerificationError, verifyX5cChain } from "@attesto/protocol";
import type { ActivePolicy } from "../policy/active-policy.js";
import {
  failed,
  notEvaluable,
  type PresentationUnderVerification,
  perPresentationCheck,
  skipped,
  success,
  type VerificationContext,
} from "./check.js";

const restrictsIssuers = ({ policy, roots }: ActivePolicy) => policy.trustedIssuerDids.length > 0 || roots.length > 0;

/** Whether the verified issuer is one a policy trusts: its DID listed, or its x5c chain anchored in the policy's roots. */
async function trusts(
  { policy, roots }: ActivePolicy,
  presentation: PresentationUnderVerification,
  context: VerificationContext,
): Promise<boolean> {
  const { issuer } = presentation;
  if (issuer?.chain) {
    if (roots.length === 0) return false;
    try {
      await verifyX5cChain(issuer.x5c, roots, context.now);
      return true;
    } catch (error) {
      if (error instanceof SdJwtVerificationError) return false;
      throw error;
    }
  }
  const did = issuer?.did;
  return did !== undefined && policy.trustedIssuerDids.some((value) => value.split("#")[0] === did);
}

/**
 * `policy.trusted_issuer` (tenants with a verifier policy): for every policy naming trusted issuers,
 * the verified issuer is one of its DIDs (DID path) or its x5c chain leads to one of its X.509 roots.
 */
export const policyTrustedIssuerCheck = perPresentationCheck("policy.trusted_issuer", async (presentation, context) => {
  if (!presentation.parsed && !presentation.mdoc) return notEvaluable();
  const restricting = context.policies.filter(restrictsIssuers);
  if (restricting.length === 0) return skipped("not_restricted", "no verifier policy restricts the issuers");
  if (!presentation.issuer?.signatureVerified) {
    return skipped("not_evaluable", "the issuer could not be verified (see issuer_signature)");
  }
  for (const active of restricting) {
    if (!(await trusts(active, presentation, context))) {
      return failed("untrusted_issuer", `the issuer is not trusted by verifier policy '${active.policy.name}'`);
    }
  }
  return success("trusted", "the issuer is trusted by the verifier policy");
});
