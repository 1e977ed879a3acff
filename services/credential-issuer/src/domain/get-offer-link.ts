import { notFound } from "@attesto/runtime/errors";
import { offerLinksOf } from "./create-offer.js";
import type { IssuerDependencies } from "./ports.js";

/**
 * What an offer's public page shows: `offered` (the wallet may still take it), `redeemed` (a wallet
 * exchanged its grant), `expired` (not redeemed before `expires_at`).
 */
export type OfferLinkStatus = "offered" | "redeemed" | "expired";

export interface OfferLink {
  /** The `openid-credential-offer://` link, exactly as `POST /v1/offers` answered it. */
  deepLink: string;
  status: OfferLinkStatus;
  expiresAt: Date;
}

/**
 * The deep link and status of an offer, for its QR code and public page. The offer id (a random
 * UUID) is the only key: whoever has it already has the link itself. Nothing else of the offer
 * (claims, type, tenant) is exposed. Unknown: 404.
 */
export async function getOfferLink(
  deps: Pick<IssuerDependencies, "issuerUrl" | "now" | "offers">,
  offerId: string,
): Promise<OfferLink> {
  const offer = await deps.offers.findById(offerId);
  if (!offer) throw notFound("Offer not found");
  const status: OfferLinkStatus =
    offer.status === "redeemed"
      ? "redeemed"
      : offer.expiresAt.getTime() <= deps.now().getTime()
        ? "expired"
        : "offered";
  return { deepLink: offerLinksOf(deps.issuerUrl, offer.id).deepLink, status, expiresAt: offer.expiresAt };
}
