import { createKeyObjectSigner } from "@attesto/protocol";
import type { Offer } from "./offer.js";
import type { CredentialSigner, IssuerDependencies } from "./ports.js";

/** The X.509 path's status lists: signed by the tenant's custody key, like its credentials. */
export const X509_STATUS_LIST_SIGNER = "x509";

/**
 * DID path: the offer's key (imported once per tenant and key, issuer-keys.ts) with its DID URL as
 * `kid`; X.509 path: key custody with `x5c`.
 * A DID-path key is named by its `kid` and thumbprint, so a DID whose key was replaced under the
 * same `kid` gets lists of its own.
 */
export async function credentialSignerOf(
  deps: Pick<IssuerDependencies, "issuerKeys" | "x509Signers">,
  offer: Pick<Offer, "id" | "tenant" | "signing">,
): Promise<CredentialSigner> {
  const { signing } = offer;
  if (signing.mode === "x509") {
    return {
      signer: await deps.x509Signers.signerFor(offer.tenant),
      statusListSigner: { key: X509_STATUS_LIST_SIGNER },
    };
  }
  const { key, thumbprint } = await deps.issuerKeys.keyOf({ id: offer.id, tenant: offer.tenant, signing });
  return {
    signer: createKeyObjectSigner(key, { kid: signing.issuerKid }),
    statusListSigner: { key: `${signing.issuerKid} ${thumbprint}`, signingOfferId: offer.id },
  };
}
