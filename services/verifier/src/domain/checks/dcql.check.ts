import { type DcqlPresentedCredential, matchDcqlPresentations } from "@attesto/protocol";
import { mdocClaimsOf } from "../mdoc/mdoc-checks.js";
import { failed, skipped, success, type VerificationCheck } from "./check.js";

/**
 * `dcql`: the presentations answer the DCQL query: every vp_token key is a credential query id,
 * one presentation per query unless `multiple`, every requested claim disclosed with one of its
 * `values` (claim sets honoured), every required credential query or credential set answered.
 */
export const dcqlCheck: VerificationCheck = {
  name: "dcql",
  async run({ query, presentations }) {
    if (presentations.some((presentation) => !presentation.parsed && !presentation.mdoc)) {
      return skipped("not_evaluable", "a presentation is not a valid SD-JWT or DeviceResponse (see sd_jwt_structure)");
    }
    const presented: Record<string, DcqlPresentedCredential[]> = {};
    for (const { queryId, parsed, mdoc } of presentations) {
      const answers = presented[queryId] ?? [];
      if (mdoc) {
        answers.push({ format: "mso_mdoc", doctype: mdoc.msoDocType, claims: mdocClaimsOf(mdoc) });
      } else {
        const vct = typeof parsed!.claims.vct === "string" ? parsed!.claims.vct : undefined;
        answers.push({ vct, claims: parsed!.claims });
      }
      presented[queryId] = answers;
    }
    const match = matchDcqlPresentations(query, presented);
    if (!match.satisfied) return failed(match.code, match.message);
    return success("satisfied", "the presentations satisfy the DCQL query");
  },
};
