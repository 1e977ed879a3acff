import { isJsonObject } from "@attesto/protocol";
import { mdocClaimsOf } from "../mdoc/mdoc-checks.js";
import { claimPathLabel } from "../policy/verifier-policy.js";
import { failed, notEvaluable, perPresentationCheck, skipped, success } from "./check.js";

/** Whether `path` (object member names) leads to a non-null value in the disclosed claims. */
function hasClaim(claims: Record<string, unknown>, path: readonly string[]): boolean {
  let current: unknown = claims;
  for (const segment of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, segment)) return false;
    current = current[segment];
  }
  return current !== null && current !== undefined;
}

/**
 * `policy.required_claims` (tenants with a verifier policy): every claim path a policy requires is
 * disclosed (or always visible) in the credential. Messages name the path, never a value.
 */
export const policyRequiredClaimsCheck = perPresentationCheck("policy.required_claims", ({ parsed, mdoc }, context) => {
  if (!parsed && !mdoc) return notEvaluable();
  // An mdoc's claims are its disclosed elements by namespace: a required path is [namespace, element].
  const claims = mdoc ? mdocClaimsOf(mdoc) : parsed!.claims;
  const restricting = context.policies.filter(({ policy }) => policy.requiredClaims.length > 0);
  if (restricting.length === 0) return skipped("not_restricted", "no verifier policy requires claims");
  for (const { policy } of restricting) {
    const missing = policy.requiredClaims.find((path) => !hasClaim(claims, path));
    if (missing) {
      return failed(
        "required_claim_missing",
        `claim '${claimPathLabel(missing)}' required by verifier policy '${policy.name}' was not disclosed`,
      );
    }
  }
  return success("present", "every claim the verifier policy requires is disclosed");
});
