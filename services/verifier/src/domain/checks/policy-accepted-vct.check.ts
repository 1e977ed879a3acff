import { failed, notEvaluable, perPresentationCheck, skipped, success } from "./check.js";

/** A vct as a message shows it (a credential's vct can be long). */
const shorten = (vct: string) => (vct.length > 200 ? `${vct.slice(0, 200)}…` : vct);

/** `policy.accepted_vct` (tenants with a verifier policy): the credential's vct is one every policy naming VCTs accepts. */
export const policyAcceptedVctCheck = perPresentationCheck("policy.accepted_vct", ({ parsed, mdoc }, context) => {
  if (!parsed && !mdoc) return notEvaluable();
  const restricting = context.policies.filter(({ policy }) => policy.acceptedVcts.length > 0);
  if (restricting.length === 0) return skipped("not_restricted", "no verifier policy restricts the vct");
  // An mdoc's type is its docType: a policy lists the doctypes it accepts beside the vcts.
  const vct = mdoc ? mdoc.msoDocType : parsed!.claims.vct;
  for (const { policy } of restricting) {
    if (typeof vct !== "string" || !policy.acceptedVcts.includes(vct)) {
      // Types are not personal data: naming both sides lets whoever wrote the policy see a mismatch
      // (e.g. a vct of another host or port) at once.
      const presented = typeof vct === "string" ? `vct ${shorten(vct)}` : "vct is missing: it";
      const accepted = policy.acceptedVcts.map(shorten).join(", ");
      return failed(
        "vct_not_accepted",
        `the credential's ${presented} is not among the accepted vcts [${accepted}] of verifier policy '${policy.name}'`,
      );
    }
  }
  return success("accepted", "the credential's vct is accepted by the verifier policy");
});
