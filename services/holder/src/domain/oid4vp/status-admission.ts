import type { HeldCredentialStatus } from "../credentials/credential-status.js";

/**
 * What the caller asks to present although its issuer says otherwise (request fields
 * `include_revoked`, `include_suspended`; both default false).
 */
export interface StatusOptIn {
  includeRevoked: boolean;
  includeSuspended: boolean;
}

/** Why a matching credential is left out of presentation (`excluded_credentials[].reason`). */
export type ExclusionReason = "revoked" | "suspended";

/**
 * Revoked and suspended credentials are not offered for presentation unless the caller opts in (a
 * verifier that checks the status list would refuse them, and presenting a revoked credential is
 * not what a wallet does by accident). `status_unknown` and `no_status` are offered: the list may
 * just be unreachable from here, and the verifier makes its own check.
 */
export function exclusionReasonOf(status: HeldCredentialStatus, optIn: StatusOptIn): ExclusionReason | undefined {
  if (status === "revoked" && !optIn.includeRevoked) return "revoked";
  if (status === "suspended" && !optIn.includeSuspended) return "suspended";
  return undefined;
}
