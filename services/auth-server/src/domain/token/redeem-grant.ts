import { createHash } from "node:crypto";
import { InvalidGrant } from "@attesto/runtime/errors";
import type { ReplayGuard } from "@attesto/store";
import type { Grant } from "../grant.js";
import type { GrantRedeemer } from "../ports.js";
import type { PreAuthorizedCodeGrantRequest } from "./grant-request.js";

const MINTED_NAMESPACE = "pre-authorized-code-token";
/**
 * How long the auth server remembers that a code's redemption minted a token: longer than the
 * issuer answers a repeated redemption (5 minutes), so a repeat can never mint a second token.
 */
const MINTED_RECORD_TTL_MS = 15 * 60 * 1000;

export interface RedeemGrantDeps {
  grants: Pick<GrantRedeemer, "redeemPreAuthorizedCode">;
  replay: Pick<ReplayGuard, "consume">;
  now: () => Date;
}

/** The GrantService idempotency key of a code: derived from the code alone, so a wallet's retry repeats it. */
function redemptionIdOf(preAuthorizedCode: string): string {
  return createHash("sha256").update(`attesto/pre-authorized-code-redemption/${preAuthorizedCode}`).digest("base64url");
}

/**
 * Step 3 (pre-authorized code): consume the grant at its owner (the credential issuer holds offers
 * and their codes), then claim the right to mint its one token here.
 *
 * The issuer may commit the redemption and die before answering; the wallet then sees a 503 and
 * retries with the same code. The redemption id is derived from the code, so the issuer answers
 * that repeat with the grant instead of "already used", and single use moves to the claim below:
 * of any number of requests that got the grant, exactly one mints a token.
 */
export async function redeemGrant(request: PreAuthorizedCodeGrantRequest, deps: RedeemGrantDeps): Promise<Grant> {
  const redemptionId = redemptionIdOf(request.preAuthorizedCode);
  const grant = await deps.grants.redeemPreAuthorizedCode({
    preAuthorizedCode: request.preAuthorizedCode,
    txCode: request.txCode,
    redemptionId,
  });
  const expiresAt = new Date(deps.now().getTime() + MINTED_RECORD_TTL_MS);
  if (!(await deps.replay.consume(MINTED_NAMESPACE, redemptionId, expiresAt))) {
    throw new InvalidGrant("pre-authorized code has already been used");
  }
  return grant;
}
