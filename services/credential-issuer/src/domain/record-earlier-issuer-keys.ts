import { algorithmOfKey, publicJwkOf } from "@attesto/protocol";
import { openIssuerPrivateJwk } from "./offer-issuer-key.js";
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
    if (signing.mode !== "did") continue;
    let publicJwk: ReturnType<typeof publicJwkOf>;
    try {
      publicJwk = publicJwkOf(openIssuerPrivateJwk(deps.sealer, { id: offer.id, signing }));
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
