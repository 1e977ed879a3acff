import { algorithmOfKey, publicJwkOf } from "@attesto/protocol";
import { privateKeyContext } from "./offer.js";
import { openSealedJwk } from "./offer-issuer-key.js";
import type { IssuerDependencies } from "./ports.js";

/**
 * Start-up: records the DID-path key of offers made before signing keys were recorded, so the
 * credentials they issued are listed in their tenant's JWT VC Issuer Metadata. Idempotent; an offer
 * whose sealed key no configured key-encryption key opens is skipped and counted.
 */
export async function recordEarlierIssuerKeys(
  deps: Pick<IssuerDependencies, "offers" | "issuerSigningKeys" | "sealer">,
): Promise<{ recorded: number; unreadable: number }> {
  let recorded = 0;
  let unreadable = 0;
  for (const offer of await deps.offers.findDidOffersWithUnrecordedKey()) {
    const { signing } = offer;
    // Offers since migration 0010 store their key's record with them; only older ones seal their own key.
    if (signing.mode !== "did" || !("sealedPrivateKey" in signing.key)) continue;
    let publicJwk: ReturnType<typeof publicJwkOf>;
    try {
      publicJwk = publicJwkOf(openSealedJwk(deps.sealer, signing.key.sealedPrivateKey, privateKeyContext(offer.id)));
    } catch {
      publicJwk = undefined;
    }
    if (!publicJwk) {
      unreadable += 1;
      continue;
    }
    const key = { tenant: offer.tenant, kid: signing.issuerKid, did: signing.issuerDid, publicJwk };
    await deps.issuerSigningKeys.record({ ...key, alg: algorithmOfKey(publicJwk) }, offer.createdAt);
    recorded += 1;
  }
  return { recorded, unreadable };
}
