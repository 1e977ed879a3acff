import { invalidOffer } from "../errors.js";
import { isJsonObject } from "../http/read-json.js";

/** The offer itself (`credential_offer`) or where to fetch it (`credential_offer_uri`). */
export type CredentialOfferLink = { kind: "value"; offer: unknown } | { kind: "uri"; uri: string };

/** Schemes of offer links: OID4VCI 1.0 §4.1.3 and the HAIP profile's. https links carry the same query. */
const OFFER_SCHEMES = new Set(["openid-credential-offer:", "haip-vci:", "https:", "http:"]);

/**
 * Parses an `openid-credential-offer://?credential_offer_uri=...` (or `?credential_offer=...`) link.
 * Exactly one of the two parameters; a bare https URL without them is taken as the offer URI.
 */
export function parseCredentialOfferLink(link: string): CredentialOfferLink {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    throw invalidOffer("credential_offer_uri is not a valid openid-credential-offer:// link");
  }
  if (!OFFER_SCHEMES.has(url.protocol)) {
    throw invalidOffer("credential_offer_uri must be an openid-credential-offer:// link");
  }
  const byValue = url.searchParams.get("credential_offer");
  const byReference = url.searchParams.get("credential_offer_uri");
  if (byValue !== null && byReference !== null) {
    throw invalidOffer("the offer link must carry credential_offer or credential_offer_uri, not both");
  }
  if (byReference !== null) return { kind: "uri", uri: byReference };
  if (byValue !== null) {
    let offer: unknown;
    try {
      offer = JSON.parse(byValue);
    } catch {
      throw invalidOffer("credential_offer in the link is not valid JSON");
    }
    if (!isJsonObject(offer)) throw invalidOffer("credential_offer in the link is not a JSON object");
    return { kind: "value", offer };
  }
  if (url.protocol === "https:" || url.protocol === "http:") return { kind: "uri", uri: url.toString() };
  throw invalidOffer("the offer link has neither credential_offer nor credential_offer_uri");
}
