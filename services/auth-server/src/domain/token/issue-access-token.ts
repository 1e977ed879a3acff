import type { AccessTokenSigner, VerifiedDpopProof } from "@attesto/protocol";
import type { Grant } from "../grant.js";

/**
 * Step 4: the access token. Its audience is the credential issuer identifier of the grant's
 * tenant, its subject the offer id; a DPoP proof binds it to the proof key (`cnf.jkt`); an
 * authenticated client (authorization-code flow) is named in `client_id`, and such a token is
 * `revocable`: a replay of its code revokes it, so the credential issuer checks its status
 * (TokenStatusService) before honouring it. Pre-authorized tokens skip that round trip.
 */
export function issueAccessToken(
  grant: Grant,
  proof: VerifiedDpopProof | undefined,
  deps: { signer: Pick<AccessTokenSigner, "sign">; credentialIssuerUrl: string },
  clientId?: string,
): Promise<string> {
  return deps.signer.sign({
    audience: `${deps.credentialIssuerUrl}/${grant.tenant}`,
    subject: grant.offerId,
    tenant: grant.tenant,
    offerId: grant.offerId,
    credentialConfigurationIds: grant.credentialConfigurationIds,
    dpopRequired: grant.dpopRequired,
    ...(proof ? { jkt: proof.jkt } : {}),
    ...(clientId === undefined ? {} : { clientId, revocable: true }),
  });
}
