import { resolveHolderKey } from "../dids/resolve-holder-key.js";
import { invalidOffer } from "../errors.js";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import {
  authorizationServerOf,
  fetchAuthorizationServerMetadata,
  newDpopKey,
  requestAccessToken,
} from "./request-access-token.js";
import {
  type PreAuthorizedGrant,
  type ResolvedCredentialOffer,
  resolveCredentialOffer,
} from "./resolve-credential-offer.js";
import { checkIssuable, requestAndStoreCredential } from "./store-issued-credential.js";

export interface ReceiveCredentialInput {
  credentialOfferUri: string;
  holderDid: string;
  privateKey: string;
  credentialConfigurationId: string | undefined;
  userPin: string | undefined;
  notarizeOnLedger: boolean;
}

/** Step 4: the configuration to ask for: the one named (it must be offered), else the first offered. */
export function chooseConfiguration(offer: ResolvedCredentialOffer, requested: string | undefined): string {
  if (requested === undefined) return offer.configurationIds[0]!;
  if (!offer.configurationIds.includes(requested)) {
    throw invalidOffer("credential_configuration_id is not offered");
  }
  return requested;
}

/** Step 5: the pre-authorized code grant, with its transaction code when the offer asks for one. */
function preAuthorizedGrantOf(offer: ResolvedCredentialOffer, userPin: string | undefined): PreAuthorizedGrant {
  const grant = offer.preAuthorizedGrant;
  if (!grant) {
    throw invalidOffer(
      offer.hasAuthorizationCodeGrant
        ? "the offer uses the authorization code flow: start it with POST /v1/oid4vci/authorize"
        : "the offer has no pre-authorized code grant",
    );
  }
  if (grant.txCodeRequired && userPin === undefined)
    throw invalidOffer("the offer requires a transaction code: send user_pin");
  return grant;
}

/**
 * POST /v1/oid4vci/receive: the pre-authorized code flow as a wallet runs it against any OID4VCI
 * 1.0 issuer, as an ordered list of steps:
 *  1. the holder key (holder_did must be the caller's, private_key its key)    -> 400 invalid_holder_key
 *  2. notarize_on_ledger: the ledger must answer first, so no code is burned   -> 503
 *  3. resolve the offer and the issuer metadata                                -> 400 invalid_offer
 *  4. choose the configuration (format dc+sd-jwt, the key's proof algorithm)   -> 400 invalid_offer / invalid_proof
 *  5. the pre-authorized grant (tx_code when asked)                            -> 400 invalid_offer
 *  6. authorization server metadata                                            -> 400 invalid_offer
 *  7. token request with a DPoP proof (use_dpop_nonce retried)                 -> 400 invalid_grant / issuance_failed
 *  8. c_nonce, key proof (kid = holder DID URL, or jwk)                        -> 400 issuance_failed
 *  9. credential request (is_on_chain; DPoP nonce retried)                     -> 400 invalid_proof / issuance_failed, 503
 * 10. verify the credential (signature, iss, vct, cnf, validity)               -> 400 invalid_credential
 * 11. store it, sealed (with the notification handle: notification_id, token, DPoP key)
 * 12. notify the issuer: credential_accepted (best effort; logged at warn)     -> 201
 */
export async function receiveCredential(
  deps: Pick<HolderDependencies, "dids" | "credentials" | "ledger" | "http" | "now" | "clockSkewSeconds">,
  userUuid: string,
  input: ReceiveCredentialInput,
  log: WarningLog,
): Promise<StoredCredential> {
  const holder = await resolveHolderKey(deps, userUuid, input.holderDid, input.privateKey);
  if (input.notarizeOnLedger) await deps.ledger.assertReachable();
  const offer = await resolveCredentialOffer(deps, input.credentialOfferUri);
  const configurationId = chooseConfiguration(offer, input.credentialConfigurationId);
  const configuration = offer.configurations.get(configurationId)!;
  // Refused before the code is redeemed: a burned code cannot be retried with another key.
  checkIssuable(configuration, holder);
  const grant = preAuthorizedGrantOf(offer, input.userPin);
  const asMetadata = await fetchAuthorizationServerMetadata(deps, authorizationServerOf(offer, grant));
  const dpopKey = newDpopKey(asMetadata);
  const token = await requestAccessToken(deps, { metadata: asMetadata, grant, txCode: input.userPin, dpopKey });
  return requestAndStoreCredential(
    deps,
    userUuid,
    {
      target: { credentialIssuer: offer.credentialIssuer, metadata: offer.metadata, configurationId, configuration },
      holder,
      token,
      dpopKey,
      notarizeOnLedger: input.notarizeOnLedger,
    },
    log,
  );
}
