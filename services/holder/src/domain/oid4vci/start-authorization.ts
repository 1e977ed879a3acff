import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createPkce } from "@attesto/protocol";
import { AppError } from "@attesto/runtime/errors";
import { resolveHolderKey } from "../dids/resolve-holder-key.js";
import { invalidOffer } from "../errors.js";
import type { HolderDependencies } from "../ports.js";
import { pushAuthorizationRequest } from "./push-authorization-request.js";
import { chooseConfiguration } from "./receive-credential.js";
import {
  authorizationServerOf,
  fetchAuthorizationServerMetadata,
  newDpopKey,
  supportsDpop,
} from "./request-access-token.js";
import { resolveCredentialOffer } from "./resolve-credential-offer.js";
import { checkIssuable } from "./store-issued-credential.js";
import { clientAttestationHeaders } from "./wallet-attestation.js";
import type { AuthorizationServerMetadata } from "./z-credential-offer.js";

/** Flows one holder may have waiting for the browser at once. */
export const MAX_PENDING_FLOWS = 20;

/** The callback finds a flow by the SHA-256 of its `state` (the state itself is never stored). */
export const stateHashOf = (state: string) => createHash("sha256").update(state).digest("hex");

export interface StartAuthorizationInput {
  credentialOfferUri: string;
  holderDid: string;
  privateKey: string;
  credentialConfigurationId: string | undefined;
  notarizeOnLedger: boolean;
}

export interface StartedAuthorization {
  flowId: string;
  authorizationUrl: string;
  expiresAt: Date;
}

/** The endpoints of an authorization server that runs the authorization code flow with PAR and PKCE S256. */
function requireCodeFlowEndpoints(metadata: AuthorizationServerMetadata) {
  const { pushed_authorization_request_endpoint: par, authorization_endpoint: authorize } = metadata;
  if (!par)
    throw invalidOffer("the authorization server has no pushed_authorization_request_endpoint (PAR is required)");
  if (!authorize) throw invalidOffer("the authorization server has no authorization_endpoint");
  const methods = metadata.code_challenge_methods_supported;
  if (methods && !methods.includes("S256")) throw invalidOffer("the authorization server does not support PKCE S256");
  return { ...metadata, pushed_authorization_request_endpoint: par, authorization_endpoint: authorize };
}

/** authorization_endpoint?client_id&request_uri (RFC 9126 §4), keeping the endpoint's own query. */
function authorizationUrlOf(endpoint: string, clientId: string, requestUri: string): string {
  const url = new URL(endpoint);
  url.searchParams.set("client_id", clientId);
  url.searchParams.set("request_uri", requestUri);
  return url.href;
}

/**
 * POST /v1/oid4vci/authorize: starts the authorization code flow for an offer as a wallet does:
 *  1. the holder key (as receive), the ledger when notarizing       -> 400 invalid_holder_key / 503
 *  2. offer, issuer metadata, its authorization_code grant, the configuration (as receive) -> 400 invalid_offer
 *  3. at most MAX_PENDING_FLOWS flows waiting per holder             -> 429 rate_limited
 *  4. authorization server metadata: PAR and authorization endpoints, S256 -> 400 invalid_offer
 *  5. PAR: PKCE S256, state, issuer_state, authorization_details, the flow's DPoP key, the wallet's
 *     client attestation (fresh PoP)                                 -> 400 issuance_failed
 *  6. the flow is stored (secrets sealed); the answer is the URL the user opens in a browser.
 */
export async function startAuthorization(
  deps: Pick<HolderDependencies, "dids" | "ledger" | "http" | "now" | "authorizationFlows"> &
    Pick<HolderDependencies, "wallet" | "callbackUrl" | "authorizationFlowTtlSeconds">,
  userUuid: string,
  input: StartAuthorizationInput,
): Promise<StartedAuthorization> {
  const holder = await resolveHolderKey(deps, userUuid, input.holderDid, input.privateKey);
  if (input.notarizeOnLedger) await deps.ledger.assertReachable();
  const offer = await resolveCredentialOffer(deps, input.credentialOfferUri);
  const grant = offer.authorizationCodeGrant;
  if (!grant) {
    throw invalidOffer("the offer has no authorization code grant: receive it with POST /v1/oid4vci/receive");
  }
  const configurationId = chooseConfiguration(offer, input.credentialConfigurationId);
  const configuration = offer.configurations.get(configurationId)!;
  checkIssuable(configuration, holder);
  const now = deps.now();
  // Ended and abandoned flows are kept a day (their status can be read), then go.
  await deps.authorizationFlows.purge(new Date(now.getTime() - 86_400_000));
  if ((await deps.authorizationFlows.countPending(userUuid, now)) >= MAX_PENDING_FLOWS) {
    throw new AppError(
      429,
      "rate_limited",
      `at most ${MAX_PENDING_FLOWS} authorization flows may wait for the browser at once; finish them or let them expire`,
    );
  }
  const asMetadata = requireCodeFlowEndpoints(
    await fetchAuthorizationServerMetadata(deps, authorizationServerOf(offer, grant)),
  );
  const endpointProblem = deps.http.checkUrl(asMetadata.authorization_endpoint);
  if (endpointProblem) throw invalidOffer(`the authorization_endpoint ${endpointProblem}`);

  const { clientId } = deps.wallet;
  const pkce = createPkce();
  const state = randomBytes(32).toString("base64url");
  const dpopKey = newDpopKey(asMetadata);
  const useDpop = supportsDpop(asMetadata);
  const attestation = await deps.wallet.attestationForFlow(now);
  const authorizationDetails = [
    {
      type: "openid_credential",
      credential_configuration_id: configurationId,
      // OID4VCI 1.0 §5.1.1: names the credential issuer when its metadata lists authorization servers.
      ...(offer.metadata.authorization_servers ? { locations: [offer.credentialIssuer] } : {}),
    },
  ];
  const form = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: deps.callbackUrl,
    code_challenge: pkce.codeChallenge,
    code_challenge_method: pkce.codeChallengeMethod,
    state,
    authorization_details: JSON.stringify(authorizationDetails),
  });
  if (grant.issuerState !== undefined) form.set("issuer_state", grant.issuerState);
  const pushed = await pushAuthorizationRequest(deps, {
    metadata: asMetadata,
    form,
    dpopKey: useDpop ? dpopKey : undefined,
    clientAuthentication: async () =>
      attestation
        ? clientAttestationHeaders(attestation, { clientId, audience: asMetadata.issuer, now: deps.now() })
        : {},
  });

  const flowId = randomUUID();
  const expiresAt = new Date(now.getTime() + deps.authorizationFlowTtlSeconds * 1000);
  await deps.authorizationFlows.insert({
    id: flowId,
    userUuid,
    stateHash: stateHashOf(state),
    status: "pending",
    credentialIssuer: offer.credentialIssuer,
    credentialConfigurationId: configurationId,
    credentialId: null,
    error: null,
    errorDescription: null,
    createdAt: now,
    expiresAt,
    endedAt: null,
    secrets: {
      holderDid: holder.did,
      privateKey: input.privateKey,
      notarizeOnLedger: input.notarizeOnLedger,
      clientId,
      redirectUri: deps.callbackUrl,
      codeVerifier: pkce.codeVerifier,
      dpopKey,
      ...(pushed.dpopNonce ? { dpopNonce: pushed.dpopNonce } : {}),
      ...(attestation ? { attestation } : {}),
      target: { credentialIssuer: offer.credentialIssuer, metadata: offer.metadata, configurationId, configuration },
      authorizationServer: asMetadata,
    },
  });
  return {
    flowId,
    authorizationUrl: authorizationUrlOf(asMetadata.authorization_endpoint, clientId, pushed.requestUri),
    expiresAt,
  };
}
