import type { CacheScope } from "@attesto/protocol/cache";
import { AppError, notFound } from "@attesto/runtime/errors";
import { sha256Hex } from "./create-offer.js";
import { INACTIVE_ISSUER, isIssuerActive, requestTenantScope } from "./issuer-lifecycle.js";
import { dpopRequiredFor, isUuid, type Offer } from "./offer.js";
import { offeredClaimPaths } from "./offered-claim-paths.js";
import type { IssuerDependencies } from "./ports.js";

/** What a redeemed grant entitles the token holder to (GrantService `Grant`). */
export interface RedeemedGrant {
  offerId: string;
  tenant: string;
  credentialConfigurationIds: string[];
  dpopRequired: boolean;
  /** The offer's claims as key paths, never their values (the consent page lists them). */
  claimPaths: string[][];
}

/** What redeeming and resolving grants works with. */
type GrantDependencies = Pick<IssuerDependencies, "now" | "offers" | "offerMemory" | "tenants">;

const invalidGrant = (message: string) => new AppError(400, "invalid_grant", message);

const grantOf = (offer: Offer): RedeemedGrant => ({
  offerId: offer.id,
  tenant: offer.tenant,
  credentialConfigurationIds: [offer.credentialConfigurationId],
  dpopRequired: dpopRequiredFor(offer),
  claimPaths: offeredClaimPaths(offer.claims),
});

/** Why a redemption found nothing to redeem, told from the offer as it is now. */
function whyNotRedeemable(offer: Offer | undefined, now: Date, what: string, txCodeGiven?: boolean): AppError {
  if (!offer) return invalidGrant(`${what} is invalid`);
  if (offer.status === "redeemed") return invalidGrant(`${what} has already been used`);
  if (offer.expiresAt.getTime() <= now.getTime()) return invalidGrant(`${what} has expired`);
  if (offer.grant.type === "pre-authorized" && offer.grant.txCodeHash !== undefined) {
    return invalidGrant(txCodeGiven ? "tx_code is wrong" : "tx_code is required");
  }
  return invalidGrant(`${what} cannot be redeemed`);
}

/**
 * The grant of `offer` (just redeemed), unless its tenant is deactivated or the offer was open when it was
 * (`invalid_grant`, also when its code was valid).
 */
async function activeGrant(
  deps: Pick<IssuerDependencies, "offerMemory" | "tenants">,
  offer: Offer,
  scope?: CacheScope,
): Promise<RedeemedGrant> {
  if (!(await isIssuerActive(deps, offer.tenant, offer.createdAt, scope))) throw invalidGrant(INACTIVE_ISSUER);
  // The credential request that follows with the token signs from it without reading it again.
  deps.offerMemory.remember(offer);
  return grantOf(offer);
}

/** GrantService.CheckIssuerActive: `invalid_grant` unless the tenant may issue now. */
export async function checkIssuerActive(deps: Pick<IssuerDependencies, "tenants">, tenant: string): Promise<void> {
  if (tenant === "" || !(await isIssuerActive(deps, tenant.toLowerCase()))) throw invalidGrant(INACTIVE_ISSUER);
}

/** How long a redemption may be repeated with its idempotency key (a lost answer retried). */
const REDEMPTION_REPLAY_WINDOW_MS = 5 * 60 * 1000;
const MAX_REDEMPTION_ID_LENGTH = 128;

/** A repeat of the redemption that consumed the offer: same key, same tx_code, within the window. */
function isRepeatOf(
  offer: Offer | undefined,
  redemptionId: string,
  txCodeHash: string | undefined,
  now: Date,
): offer is Offer {
  if (offer?.status !== "redeemed" || redemptionId === "" || offer.redemptionId !== redemptionId) return false;
  if (offer.grant.type !== "pre-authorized") return false;
  if (offer.grant.txCodeHash !== undefined && offer.grant.txCodeHash !== txCodeHash) return false;
  return offer.redeemedAt !== undefined && now.getTime() - offer.redeemedAt.getTime() <= REDEMPTION_REPLAY_WINDOW_MS;
}

/**
 * GrantService.RedeemPreAuthorizedCode: the code (looked up by its SHA-256 only) must belong to a
 * live offer that was not redeemed yet; the tx_code must match when the offer requires one. Single
 * use holds under races: the state change is one conditional UPDATE, which records the caller's
 * redemption id. The same redemption repeated (same id and tx_code, within
 * REDEMPTION_REPLAY_WINDOW_MS) answers the grant again: the issuer may die after committing and
 * before answering, and the caller's retry must not find its own code "already used". Failures
 * are `invalid_grant`.
 */
export async function redeemPreAuthorizedCode(
  deps: GrantDependencies,
  input: { code: string; txCode: string; redemptionId?: string },
): Promise<RedeemedGrant> {
  if (input.code === "") throw invalidGrant("pre-authorized_code is required");
  const redemptionId = input.redemptionId ?? "";
  if (redemptionId.length > MAX_REDEMPTION_ID_LENGTH) {
    throw new AppError(400, "invalid_request", `redemption_id is longer than ${MAX_REDEMPTION_ID_LENGTH} characters`);
  }
  const codeHash = sha256Hex(input.code);
  const txCodeHash = input.txCode === "" ? undefined : sha256Hex(input.txCode);
  const now = deps.now();
  // Its barrier runs beside the redemption; the tenant check after it awaits that barrier.
  const scope = requestTenantScope(deps);
  const offer = await deps.offers.redeemPreAuthorizedCode(codeHash, txCodeHash, redemptionId || undefined, now);
  if (offer) return activeGrant(deps, offer, scope);
  const current = await deps.offers.findByCodeHash(codeHash);
  if (isRepeatOf(current, redemptionId, txCodeHash, now)) return activeGrant(deps, current, scope);
  throw whyNotRedeemable(current, now, "pre-authorized code", txCodeHash !== undefined);
}

/** GrantService.ResolveIssuerState: the live, unredeemed authorization-code offer of an issuer_state. */
export async function resolveIssuerState(deps: GrantDependencies, issuerState: string): Promise<RedeemedGrant> {
  const offer = isUuid(issuerState) ? await deps.offers.findByIssuerState(issuerState.toLowerCase()) : undefined;
  if (offer?.status !== "offered" || offer.expiresAt.getTime() <= deps.now().getTime()) {
    throw notFound("issuer_state is unknown, used or expired");
  }
  if (!(await isIssuerActive(deps, offer.tenant, offer.createdAt))) {
    throw notFound("issuer_state is unknown, used or expired");
  }
  return grantOf(offer);
}

/** GrantService.RedeemIssuerState: consumes an issuer_state once (same rules as a pre-authorized code). */
export async function redeemIssuerState(deps: GrantDependencies, issuerState: string): Promise<RedeemedGrant> {
  if (!isUuid(issuerState)) throw invalidGrant("issuer_state is invalid");
  const now = deps.now();
  const offer = await deps.offers.redeemIssuerState(issuerState.toLowerCase(), now);
  if (offer) return activeGrant(deps, offer);
  throw whyNotRedeemable(await deps.offers.findByIssuerState(issuerState.toLowerCase()), now, "issuer_state");
}
