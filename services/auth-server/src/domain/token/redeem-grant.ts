import { randomBytes } from "node:crypto";
import { InvalidGrant } from "@attesto/runtime/errors";
import type { Grant } from "../grant.js";
import type { GrantRedeemer, UnansweredRedemptions } from "../ports.js";
import { sha256Hex } from "../secrets.js";
import type { PreAuthorizedCodeGrantRequest } from "./grant-request.js";

/**
 * How long an unanswered redemption may be taken up: the issuer answers a repeated redemption for
 * 5 minutes after it committed it; the rest is room for the two services' clocks.
 */
const UNANSWERED_TTL_MS = 10 * 60 * 1000;

export interface RedeemGrantDeps {
  grants: Pick<GrantRedeemer, "redeemPreAuthorizedCode">;
  unanswered: UnansweredRedemptions;
  now: () => Date;
}

/** A new GrantService idempotency key: one per token request (the RPC client's own retries repeat it). */
const newRedemptionId = () => randomBytes(24).toString("base64url");

/**
 * Step 3 (pre-authorized code): consume the grant at its owner (the credential issuer holds offers
 * and their codes). Single use is the issuer's one conditional UPDATE: every token request sends a
 * redemption id of its own, of any number of them exactly one wins the code, and only the winning
 * id is answered again (the issuer's idempotent repeat, for the RPC client's retries). So a request
 * that gets the grant is the one that mints the code's token, with no write of its own here.
 *
 * The issuer may commit a redemption and die before answering (or the answer is lost): the call
 * then fails without saying whether the code was consumed, the wallet sees a 503 and retries with
 * the same code. Before the 503 leaves, that redemption id is recorded as unanswered. The retry's
 * own redemption is refused ("already used") when the lost one had won; it then repeats the
 * recorded ids with the issuer, and takes the one the issuer answers out of the record (a
 * conditional DELETE): of all requests that got that grant again, exactly one mints a token. A
 * redemption that was answered never has a record, so a code whose token was handed out cannot
 * give a second one; a record of a redemption that lost is never answered by the issuer.
 */
export async function redeemGrant(request: PreAuthorizedCodeGrantRequest, deps: RedeemGrantDeps): Promise<Grant> {
  const redemptionId = newRedemptionId();
  try {
    return await deps.grants.redeemPreAuthorizedCode({
      preAuthorizedCode: request.preAuthorizedCode,
      txCode: request.txCode,
      redemptionId,
    });
  } catch (error) {
    if (error instanceof InvalidGrant) return takeUpUnanswered(request, deps, error);
    await recordUnanswered(request, redemptionId, deps);
    throw error;
  }
}

/**
 * The call failed without the issuer's verdict (unreachable, a lost answer, a deadline): the
 * redemption may have committed, so a retry may take it up. A failure to record leaves the
 * original error to answer with (the wallet's retry then finds the code used, as before this
 * record existed).
 */
async function recordUnanswered(request: PreAuthorizedCodeGrantRequest, redemptionId: string, deps: RedeemGrantDeps) {
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + UNANSWERED_TTL_MS);
  await deps.unanswered.record(sha256Hex(request.preAuthorizedCode), redemptionId, expiresAt, now).catch(() => {});
}

/**
 * The issuer refused this request's redemption. If an earlier request's redemption of the same code
 * went unanswered, the issuer answers that one's repeat (same id, same tx_code, within its window)
 * when it was the one that won: then exactly one request takes it out of the record and mints.
 * Otherwise the issuer's refusal stands.
 */
async function takeUpUnanswered(
  request: PreAuthorizedCodeGrantRequest,
  deps: RedeemGrantDeps,
  refusal: InvalidGrant,
): Promise<Grant> {
  const codeHash = sha256Hex(request.preAuthorizedCode);
  for (const redemptionId of await deps.unanswered.find(codeHash, deps.now())) {
    let grant: Grant;
    try {
      grant = await deps.grants.redeemPreAuthorizedCode({
        preAuthorizedCode: request.preAuthorizedCode,
        txCode: request.txCode,
        redemptionId,
      });
    } catch (error) {
      if (error instanceof InvalidGrant) continue; // not the redemption that won, or not its tx_code
      throw error;
    }
    if (await deps.unanswered.take(codeHash, redemptionId, deps.now())) return grant;
    break; // another request took it up and mints the token
  }
  throw refusal;
}
