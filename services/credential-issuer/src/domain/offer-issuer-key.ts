import { type Offer, type OfferSigning, privateKeyContext } from "./offer.js";
import type { SecretSealer } from "./ports.js";

type DidSigning = Extract<OfferSigning, { mode: "did" }>;

/** The private JWK sealed with a DID-path offer; the opened buffer is wiped once parsed. */
export function openIssuerPrivateJwk(
  sealer: SecretSealer,
  offer: Pick<Offer, "id"> & { signing: DidSigning },
): Record<string, string> {
  const opened = sealer.open(offer.signing.sealedPrivateKey, privateKeyContext(offer.id));
  try {
    return JSON.parse(new TextDecoder().decode(opened)) as Record<string, string>;
  } finally {
    opened.fill(0);
  }
}
