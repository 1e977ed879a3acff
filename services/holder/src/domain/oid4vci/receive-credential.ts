import { randomUUID } from "node:crypto";
import { generateEd25519Jwk, generateP256Jwk } from "@attesto/protocol";
import type { JWK } from "jose";
import type { HolderDependencies } from "../dependencies.js";
import { type HolderKey, resolveHolderKey } from "../dids/resolve-holder-key.js";
import { invalidOffer } from "../errors.js";
import type { StoredCredential } from "../model.js";
import type { WarningLog } from "../ports.js";
import { checkProofAlgorithm, createKeyProof, keyReferenceFor } from "./create-key-proof.js";
import { notificationHandleOf, notifyIssuer } from "./notify-issuer.js";
import {
  type AccessToken,
  authorizationServerOf,
  dpopAlgorithmFor,
  fetchAuthorizationServerMetadata,
  requestAccessToken,
} from "./request-access-token.js";
import { fetchCNonce, parseCredentialResponse, postCredentialRequest, refusedNonce } from "./request-credential.js";
import {
  type PreAuthorizedGrant,
  type ResolvedCredentialOffer,
  resolveCredentialOffer,
} from "./resolve-credential-offer.js";
import { verifyIssuedCredential } from "./verify-issued-credential.js";

/** The formats the wallet stores and presents. */
export const SUPPORTED_FORMATS = ["dc+sd-jwt"];

export interface ReceiveCredentialInput {
  credentialOfferUri: string;
  holderDid: string;
  privateKey: string;
  credentialConfigurationId: string | undefined;
  userPin: string | undefined;
  notarizeOnLedger: boolean;
}

/** Step 4: the configuration to ask for: the one named (it must be offered), else the first offered. */
function chooseConfiguration(offer: ResolvedCredentialOffer, requested: string | undefined): string {
  if (requested === undefined) return offer.configurationIds[0]!;
  if (!offer.configurationIds.includes(requested)) {
    throw invalidOffer(`credential_configuration_id '${requested.slice(0, 100)}' is not offered`);
  }
  return requested;
}

/** Step 5: the pre-authorized code grant, with its transaction code when the offer asks for one. */
function preAuthorizedGrantOf(offer: ResolvedCredentialOffer, userPin: string | undefined): PreAuthorizedGrant {
  const grant = offer.preAuthorizedGrant;
  if (!grant) {
    throw invalidOffer(
      offer.hasAuthorizationCodeGrant
        ? "the offer uses the authorization code flow; receive supports pre-authorized code offers"
        : "the offer has no pre-authorized code grant",
    );
  }
  if (grant.txCodeRequired && userPin === undefined)
    throw invalidOffer("the offer requires a transaction code: send user_pin");
  return grant;
}

/** Steps 8-9: nonce, key proof, credential request; a refused (pre-1.0 `invalid_nonce`) nonce is renewed once. */
async function requestCredential(
  deps: HolderDependencies,
  input: {
    offer: ResolvedCredentialOffer;
    configurationId: string;
    holder: HolderKey;
    token: AccessToken;
    dpopKey: JWK;
    notarizeOnLedger: boolean;
  },
) {
  const configuration = input.offer.configurations.get(input.configurationId)!;
  const keyReference = keyReferenceFor(configuration, input.holder);
  for (let attempt = 0; ; attempt++) {
    const nonce = await fetchCNonce(deps, input.offer.metadata.nonce_endpoint, input.token);
    const proof = await createKeyProof({
      holder: input.holder,
      keyReference,
      audience: input.offer.credentialIssuer,
      nonce,
      now: deps.now(),
    });
    const response = await postCredentialRequest(deps, {
      endpoint: input.offer.metadata.credential_endpoint,
      token: input.token,
      dpopKey: input.dpopKey,
      body: {
        credential_configuration_id: input.configurationId,
        proofs: { jwt: [proof] },
        ...(input.notarizeOnLedger ? { is_on_chain: true } : {}),
      },
    });
    if (attempt === 0 && refusedNonce(response)) continue;
    return parseCredentialResponse(response);
  }
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
  deps: HolderDependencies,
  userUuid: string,
  input: ReceiveCredentialInput,
  log: WarningLog,
): Promise<StoredCredential> {
  const holder = await resolveHolderKey(deps, userUuid, input.holderDid, input.privateKey);
  if (input.notarizeOnLedger) await deps.ledger.assertReachable();
  const offer = await resolveCredentialOffer(deps, input.credentialOfferUri);
  const configurationId = chooseConfiguration(offer, input.credentialConfigurationId);
  const configuration = offer.configurations.get(configurationId)!;
  if (!SUPPORTED_FORMATS.includes(configuration.format)) {
    throw invalidOffer(`credential format '${configuration.format.slice(0, 50)}' is not supported (dc+sd-jwt)`);
  }
  // Refused before the code is redeemed: a burned code cannot be retried with another key.
  checkProofAlgorithm(configuration, holder);
  keyReferenceFor(configuration, holder);
  const grant = preAuthorizedGrantOf(offer, input.userPin);
  const asMetadata = await fetchAuthorizationServerMetadata(deps, authorizationServerOf(offer, grant));
  const dpopKey = dpopAlgorithmFor(asMetadata) === "ES256" ? generateP256Jwk() : generateEd25519Jwk();
  const token = await requestAccessToken(deps, { metadata: asMetadata, grant, txCode: input.userPin, dpopKey });
  const issued = await requestCredential(deps, {
    offer,
    configurationId,
    holder,
    token,
    dpopKey,
    notarizeOnLedger: input.notarizeOnLedger,
  });
  const verified = await verifyIssuedCredential(deps, issued.credential, {
    credentialIssuer: offer.credentialIssuer,
    vct: configuration.vct,
    holder,
  });
  const notification = notificationHandleOf(deps, {
    endpoint: offer.metadata.notification_endpoint,
    notificationId: issued.notificationId,
    token,
    dpopKey,
  });
  const credential: StoredCredential = {
    id: randomUUID(),
    userUuid,
    format: configuration.format,
    vct: verified.vct,
    issuerDid: verified.issuerDid,
    credentialIssuer: offer.credentialIssuer,
    credentialConfigurationId: configurationId,
    holderDid: holder.did,
    issuedAt: verified.issuedAt,
    expiresAt: verified.expiresAt,
    status: "active",
    createdAt: new Date(Math.floor(deps.now().getTime() / 1000) * 1000),
    raw: issued.credential,
    claims: verified.claims,
    reference: issued.reference,
    ...(notification ? { notification } : {}),
  };
  await deps.credentials.insert(credential);
  await notifyIssuer(deps, log, notification, "credential_accepted");
  return credential;
}
