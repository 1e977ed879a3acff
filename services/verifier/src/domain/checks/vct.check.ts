import { mdocDoctype } from "../mdoc/mdoc-checks.js";
import { failed, notEvaluable, perPresentationCheck, success } from "./check.js";

/**
 * `vct`: the credential has a `vct`, and it is one of the credential query's `meta.vct_values`; for
 * an mdoc, its (signed) docType is the query's `meta.doctype_value`.
 */
export const vctCheck = perPresentationCheck("vct", (presentation) => {
  const { parsed, query } = presentation;
  if (presentation.mdoc) return mdocDoctype(presentation);
  if (!parsed) return notEvaluable();
  const vct = parsed.claims.vct;
  if (typeof vct !== "string" || vct.length === 0) return failed("vct_missing", "the credential has no vct");
  const accepted = query?.meta.vct_values;
  if (accepted && !accepted.includes(vct)) {
    return failed("vct_mismatch", "the credential's vct is not one of the query's vct_values");
  }
  return success("valid", accepted ? "vct is one of the requested vct_values" : "vct is present");
});
