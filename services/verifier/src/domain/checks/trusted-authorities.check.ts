import { failed, perPresentationCheck, skipped, success } from "./check.js";

/**
 * `trusted_authorities`: when the credential query names trusted authorities, the issuer matches
 * one: `did` by the issuer DID, `aki` by an AuthorityKeyIdentifier (base64url) of the validated
 * x5c chain. Other types (etsi_tl, openid_federation) are accepted in queries but never match here.
 */
export const trustedAuthoritiesCheck = perPresentationCheck("trusted_authorities", ({ query, issuer }) => {
  const authorities = query?.trusted_authorities;
  if (!authorities) return skipped("not_requested", "the credential query names no trusted authorities");
  if (!issuer || (!issuer.did && !issuer.chain)) {
    return skipped("not_evaluable", "the issuer could not be identified (see issuer_signature)");
  }
  const did = issuer.did;
  const akis = issuer.chain?.authorityKeyIds ?? [];
  const matched = authorities.some(
    ({ type, values }) =>
      (type === "did" && did !== undefined && values.some((value) => value.split("#")[0] === did)) ||
      (type === "aki" && values.some((value) => akis.includes(value))),
  );
  if (!matched) return failed("untrusted_issuer", "the issuer is not one of the query's trusted authorities");
  return success("trusted", "the issuer is one of the query's trusted authorities");
});
