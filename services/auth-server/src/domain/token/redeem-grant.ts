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

/** Settles once the work already queued (microtasks, `nextTick`s: a statement on its way out) has run. */
const afterQueuedWork = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Step 3 (pre-authorized code): consume the grant at its owner (the credential issuer holds offers
 * and their codes), then claim the right to mint its one token here; step 4, `mint`, makes the token.
 *
 * The issuer may commit the redemption and die before answering; the wallet then sees a 503 and
 * retries with the same code. The redemption id is derived from the code, so the issuer answers
 * that repeat with the grant instead of "already used", and single use moves to the claim below:
 * of any number of requests that got the grant, exactly one mints a token.
 *
 * The token is made while the claim's statement is in flight (its round trip and commit are idle
 * time for this process; at low load they are most of the step), never before the redemption, and
 * it is returned only when the claim held: a request that loses the claim gets `invalid_grant` and
 * its token, made for nothing, never leaves. A claim that fails (the database) fails the step first.
 */
export async function redeemGrant<T>(
  request: PreAuthorizedCodeGrantRequest,
  deps: RedeemGrantDeps,
  mint: (grant: Grant) => Promise<T>,
): Promise<T> {
  const redemptionId = redemptionIdOf(request.preAuthorizedCode);
  const grant = await deps.grants.redeemPreAuthorizedCode({
    preAuthorizedCode: request.preAuthorizedCode,
    txCode: request.txCode,
    redemptionId,
  });
  const expiresAt = new Date(deps.now().getTime() + MINTED_RECORD_TTL_MS);
  const claimed = deps.replay.consume(MINTED_NAMESPACE, redemptionId, expiresAt);
  // Made once the claim's statement is written (setImmediate runs after the microtasks that send it).
  const minted = afterQueuedWork().then(() => mint(grant));
  minted.catch(() => undefined);
  if (!(await claimed)) throw new InvalidGrant("pre-authorized code has already been used");
  return minted;
}
