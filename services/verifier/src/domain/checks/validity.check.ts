import { mdocValidity } from "../mdoc/mdoc-checks.js";
import { failed, notEvaluable, perPresentationCheck, success } from "./check.js";

const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * `validity`: the credential's `exp` has not passed, its `nbf` has, and its `iat` is not in the
 * future, each with CLOCK_SKEW_SECONDS of tolerance. Absent claims are not required. For an mdoc:
 * the MSO's validityInfo (mdocValidity).
 */
export const validityCheck = perPresentationCheck("validity", ({ parsed, mdoc }, context) => {
  if (mdoc) return mdocValidity(mdoc, context);
  const { now, limits } = context;
  if (!parsed) return notEvaluable();
  const { iat, nbf, exp } = parsed.claims;
  for (const [name, value] of Object.entries({ iat, nbf, exp })) {
    if (value !== undefined && !isTime(value)) return failed("time_claim_invalid", `${name} is not a NumericDate`);
  }
  const seconds = now.getTime() / 1000;
  const skew = limits.clockSkewSeconds;
  if (isTime(exp) && seconds > exp + skew) return failed("expired", "the credential has expired");
  if (isTime(nbf) && seconds < nbf - skew) return failed("not_yet_valid", "the credential is not valid yet (nbf)");
  if (isTime(iat) && iat > seconds + skew) return failed("issued_in_future", "the credential's iat is in the future");
  return success("valid", "the credential is within its validity period");
});
