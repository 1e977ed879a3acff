import { randomUUID } from "node:crypto";
import type { JWK } from "jose";
import type { HolderKey } from "../dids/resolve-holder-key.js";
import { invalidOffer } from "../errors.js";
import type { StoredCredential } from "../model.js";
import type { HolderDependencies, WarningLog } from "../ports.js";
import { checkProofAlgorithm, createKeyProof, keyReferenceFor } from "./create-key-proof.js";
import { notificationHandleOf, notifyIssuer } from "./notify-issuer.js";
import type { AccessToken } from "./request-access-token.js";
import { fetchCNonce, parseCredentialResponse, postCredentialRequest, refusedNonce } from "./request-credential.js";
import { verifyIssuedCredential } from "./verify-issued-credential.js";
import { verifyIssuedMdoc } from "./verify-issued-mdoc.js";
import type { CredentialConfigurationMetadata, IssuanceTarget } from "./z-credential-offer.js";

/** The formats the wallet stores and presents. */
export const SUPPORTED_FORMATS = ["dc+sd-jwt", "mso_mdoc"];

/**
 * The configuration can be issued to this holder key: format dc+sd-jwt, the key's proof algorithm
 * and a way to name the key. Checked before any code is redeemed (a burned code cannot be retried).
 */
export function checkIssuable(configuration: CredentialConfigurationMetadata, holder: HolderKey): void {
  if (!SUPPORTED_FORMATS.includes(configuration.format)) {
    throw invalidOffer(
      `credential format '${configuration.format.slice(0, 50)}' is not supported (dc+sd-jwt, mso_mdoc)`,
    );
  }
  checkProofAlgorithm(configuration, holder);
  keyReferenceFor(configuration, holder);
}

/** Nonce, key proof, credential request; a refused (pre-1.0 `invalid_nonce`) nonce is renewed once. */
async function requestCredential(
  deps: Pick<HolderDependencies, "http" | "now">,
  input: { target: IssuanceTarget; holder: HolderKey; token: AccessToken; dpopKey: JWK; notarizeOnLedger: boolean },
) {
  const { target } = input;
  const keyReference = keyReferenceFor(target.configuration, input.holder);
  for (let attempt = 0; ; attempt++) {
    const nonce = await fetchCNonce(deps, target.metadata.nonce_endpoint, input.token);
    const proof = await createKeyProof({
      holder: input.holder,
      keyReference,
      audience: target.credentialIssuer,
      nonce,
      now: deps.now(),
    });
    const response = await postCredentialRequest(deps, {
      endpoint: target.metadata.credential_endpoint,
      token: input.token,
      dpopKey: input.dpopKey,
      body: {
        credential_configuration_id: target.configurationId,
        proofs: { jwt: [proof] },
        ...(input.notarizeOnLedger ? { is_on_chain: true } : {}),
      },
    });
    if (attempt === 0 && refusedNonce(response)) continue;
    return parseCredentialResponse(response);
  }
}

/**
 * With an access token in hand (either grant): c_nonce, key proof, credential request, the
 * credential verified, stored sealed (with its notification handle), then `credential_accepted`
 * sent to the issuer (best effort).
 */
export async function requestAndStoreCredential(
  deps: Pick<HolderDependencies, "credentials" | "ledger" | "http" | "now" | "clockSkewSeconds">,
  userUuid: string,
  input: { target: IssuanceTarget; holder: HolderKey; token: AccessToken; dpopKey: JWK; notarizeOnLedger: boolean },
  log: WarningLog,
): Promise<StoredCredential> {
  const { target, holder, token, dpopKey } = input;
  const issued = await requestCredential(deps, input);
  const isMdoc = target.configuration.format === "mso_mdoc";
  const verified = isMdoc
    ? await verifyIssuedMdoc(deps, issued.credential, { doctype: target.configuration.doctype, holder })
    : await verifyIssuedCredential(deps, issued.credential, {
        credentialIssuer: target.credentialIssuer,
        vct: target.configuration.vct,
        holder,
      });
  const notification = notificationHandleOf(deps, {
    endpoint: target.metadata.notification_endpoint,
    notificationId: issued.notificationId,
    token,
    dpopKey,
  });
  const credential: StoredCredential = {
    id: randomUUID(),
    userUuid,
    format: target.configuration.format,
    // An mdoc keeps its doctype here; its issuer is named by the credential issuer it came from.
    vct: verified.vct,
    issuerDid: isMdoc ? target.credentialIssuer : verified.issuerDid,
    credentialIssuer: target.credentialIssuer,
    credentialConfigurationId: target.configurationId,
    issuerCredentialId: issued.issuerCredentialId,
    issuerOfferId: issued.issuerOfferId,
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
