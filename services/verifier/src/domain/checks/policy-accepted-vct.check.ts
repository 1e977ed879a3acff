import { failed, notEvaluable, perPresentationCheck, skipped, success } from "./check.js";

/** `policy.accepted_vct` (tenants with a verifier policy): the credential's vct is one every policy naming VCTs accepts. */
export const policyAcceptedVctCheck = perPresentationCheck("policy.accepted_vct", ({ parsed }, context) => {
  if (!parsed) return notEvaluable();
  const restricting = context.policies.filter(({ policy }) => policy.acceptedVcts.length > 0);
  if (restricting.length === 0) return skipped("not_restricted", "no verifier policy restricts the vct");
  const vct = parsed.claims.vct;
  for (const { policy } of restricting) {
    if (typeof vct !== "string" || !policy.acceptedVcts.includes(vct)) {
      return failed("vct_not_accepted", `the credential's vct is not accepted by verifier policy '${policy.name}'`);
    }
  }
  return success("accepted", "the credential's vct is accepted by the verifier policy");
});
