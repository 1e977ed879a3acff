import type { Grant, GrantRedeemer } from "../grant.js";
import type { PreAuthorizedCodeGrantRequest } from "./parse-grant-request.js";

/** Step 3 (pre-authorized code): consume the grant at its owner (the credential issuer holds offers and their codes). */
export async function redeemGrant(
  request: PreAuthorizedCodeGrantRequest,
  grants: Pick<GrantRedeemer, "redeemPreAuthorizedCode">,
): Promise<Grant> {
  return grants.redeemPreAuthorizedCode({ preAuthorizedCode: request.preAuthorizedCode, txCode: request.txCode });
}
