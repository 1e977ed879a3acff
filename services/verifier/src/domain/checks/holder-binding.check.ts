import { holderJwkOf, isJsonObject, SdJwtVerificationError, verifyKeyBindingJwt } from "@attesto/protocol";
import { mdocDeviceBinding } from "../mdoc/mdoc-checks.js";
import { failed, notEvaluable, perPresentationCheck, skipped, success } from "./check.js";

/**
 * `holder_binding`: when the credential has `cnf` or the query requires cryptographic holder
 * binding (the default), the KB-JWT must be there with `typ` `kb+jwt`, an allowed `alg`, a
 * signature by `cnf.jwk`, `aud` = the full client_id, `nonce` = the request nonce, `iat` within
 * KB_JWT_MAX_AGE_SECONDS in the past and CLOCK_SKEW_SECONDS in the future, and `sd_hash` over
 * the presented SD-JWT. An mdoc is always device-bound: its device signature must verify over this
 * flow's SessionTranscript with the MSO's device key (mdocDeviceBinding).
 */
export const holderBindingCheck = perPresentationCheck("holder_binding", async (presentation, context) => {
  const { parsed, query } = presentation;
  if (presentation.mdoc) return mdocDeviceBinding(presentation.mdoc, context);
  if (!parsed) return notEvaluable();
  const required = query?.require_cryptographic_holder_binding ?? true;
  const hasCnf = parsed.claims.cnf !== undefined;
  if (!hasCnf && !required)
    return skipped("not_required", "the credential has no cnf and the query does not require holder binding");
  if (!hasCnf) return failed("cnf_missing", "the query requires holder binding but the credential has no cnf");
  const holderJwk = holderJwkOf(parsed.claims);
  if (!holderJwk) {
    const kind = isJsonObject(parsed.claims.cnf) ? "a cnf without jwk" : "a malformed cnf";
    return failed("cnf_unsupported", `the credential has ${kind}; cnf.jwk is required`);
  }
  try {
    await verifyKeyBindingJwt(parsed, holderJwk, {
      audience: context.clientId,
      nonce: context.nonce,
      now: Math.floor(context.now.getTime() / 1000),
      maxAgeSeconds: context.limits.kbJwtMaxAgeSeconds,
      clockSkewSeconds: context.limits.clockSkewSeconds,
    });
  } catch (error) {
    if (error instanceof SdJwtVerificationError) return failed(error.code, error.message);
    throw error;
  }
  return success("valid", "the KB-JWT binds the presentation to the holder key, this verifier and this request");
});
