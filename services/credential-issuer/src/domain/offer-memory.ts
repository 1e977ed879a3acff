import { createBoundedCache } from "@attesto/protocol/cache";
import type { Offer } from "./offer.js";

/** Offers remembered at once (the least recently used goes first). */
const REMEMBERED_OFFERS = 1_000;
/** Long after a wallet's issuance: it fetches the offer and asks for its credential within seconds. */
const REMEMBERED_FOR_MS = 15 * 60 * 1000;

/**
 * The offers this process wrote, as it wrote them: created (POST /v1/offers) and redeemed (the
 * token endpoint's redemption, GrantService). The wallet's next steps use them instead of reading
 * the offer again: the offer document (any state) and the credential request (only an offer this
 * process saw redeemed). A miss (evicted, restarted, written by another replica) reads the offer
 * as before; so does a credential request for an offer remembered as offered (another replica may
 * have redeemed it).
 *
 * Guarantee kept: each step sees what it would read. What they use of an offer never changes once
 * written: tenant, configuration, vct, claims, holder_did, signing key, grant and expiry are
 * written once at creation, offers are never deleted, and the only state change is the
 * redemption's conditional UPDATE (offered -> redeemed, the last state), which the credential
 * step requires to have happened (here or read). Sealed columns may be re-sealed by a key
 * rotation; this process opens what it remembers with its own keys, as it would open what it read.
 * An offer whose private key is sealed in its row (made before the key table) is not remembered.
 * A change that deletes offers, or moves them out of `redeemed`, must forget them here too.
 */
export interface OfferMemory {
  /** `offer` as this process committed it (its insert, or its redemption's RETURNING). */
  remember(offer: Offer): void;
  /** The offer as this process last wrote it, any state. */
  find(offerId: string): Offer | undefined;
}

export function createOfferMemory(): OfferMemory {
  const offers = createBoundedCache<Offer>({ max: REMEMBERED_OFFERS, ttlMs: REMEMBERED_FOR_MS });
  return {
    remember(offer) {
      if (offer.signing.mode === "did" && "sealedPrivateKey" in offer.signing.key) return;
      offers.set(offer.id, offer);
    },
    find: (offerId) => offers.get(offerId),
  };
}
