import { createPrivateJwkSigner, type JwtSigner, jwkThumbprint } from "@attesto/protocol";
import type { Offer } from "./offer.js";
import { openIssuerPrivateJwk } from "./offer-issuer-key.js";
import type { IssuerDependencies, StatusListSigner } from "./ports.js";

/** The X.509 path's status lists: signed by the tenant's custody key, like its credentials. */
export const X509_STATUS_LIST_SIGNER = "x509";

export interface CredentialSigner {
  signer: JwtSigner;
  /** The status lists this key signs: the lists of the credentials it signs. */
  statusListSigner: StatusListSigner;
}

/** The public members of a private JWK (what its RFC 7638 thumbprint covers). */
function publicMembersOf(privateJwk: Record<string, string>) {
  const { kty, crv, x, y } = privateJwk;
  return kty === "EC" ? { kty, crv, x, y } : { kty, crv, x };
}

/**
 * DID path: the offer's sealed key with its DID URL as `kid`; X.509 path: key custody with `x5c`.
 * A DID-path key is named by its `kid` and thumbprint, so a DID whose key was replaced under the
 * same `kid` gets lists of its own.
 */
export async function credentialSignerOf(
  deps: Pick<IssuerDependencies, "sealer" | "x509Signers">,
  offer: Pick<Offer, "id" | "tenant" | "signing">,
): Promise<CredentialSigner> {
  const { signing } = offer;
  if (signing.mode === "x509") {
    return {
      signer: await deps.x509Signers.signerFor(offer.tenant),
      statusListSigner: { key: X509_STATUS_LIST_SIGNER },
    };
  }
  const privateJwk = openIssuerPrivateJwk(deps.sealer, { id: offer.id, signing });
  const thumbprint = jwkThumbprint(publicMembersOf(privateJwk));
  return {
    signer: createPrivateJwkSigner(privateJwk, { kid: signing.issuerKid }),
    statusListSigner: { key: `${signing.issuerKid} ${thumbprint}`, signingOfferId: offer.id },
  };
}
