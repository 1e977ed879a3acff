import { randomUUID } from "node:crypto";
import type { VerifiedDpopProof } from "@attesto/protocol";
import { InvalidDpopProof, InvalidRequest } from "@attesto/runtime/errors";
import {
  authenticateClient,
  type ClientAttestationHeaders,
  type ClientAuthenticationDeps,
  clientAttestationRequired,
  sendsClientAttestation,
} from "../client-authentication.js";
import type { Grant } from "../grant.js";
import type { AuthorizationRequestRepository, GrantRedeemer } from "../ports.js";
import { randomSecret, sha256Hex } from "../secrets.js";
import { type TokenDpopDeps, verifyTokenDpopProof } from "../token/verify-token-dpop-proof.js";
import type { ParParameters } from "./par-parameters.js";
import { selectCredentialConfigurations } from "./select-credential-configurations.js";

/** RFC 9126 §2.2: the request_uri prefix. */
export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request-uri:";
/** a request_uri lives 60 s. */
export const REQUEST_URI_LIFETIME_SECONDS = 60;

export interface ParRequest {
  /** The form parameters, checked by the route's schema (`services/auth-server/src/routes/par-request.schema.ts`). */
  parameters: ParParameters;
  /** The `DPoP` header(s), as received. */
  dpopHeader: string | string[] | undefined;
  clientAttestation: ClientAttestationHeaders;
}

export interface ParResponse {
  body: { request_uri: string; expires_in: number };
  /** A fresh nonce for the client's next DPoP proof (sent as `DPoP-Nonce`). */
  dpopNonce: string;
}

export interface ParEndpointDeps {
  grants: Pick<GrantRedeemer, "resolveIssuerState">;
  requests: Pick<AuthorizationRequestRepository, "insert">;
  clientAuthentication: ClientAuthenticationDeps;
  /** Whether PAR requires attest_jwt_client_auth (CLIENT_ATTESTATION_REQUIRED_AUTH_CODE). */
  clientAttestationRequired: boolean;
  dpop: TokenDpopDeps;
  /** Public URL of the PAR endpoint (the `htu` of its DPoP proofs). */
  parEndpointUrl: string;
  /** Public URL of the credential issuer; credential issuer identifiers are `<it>/<tenant>`. */
  credentialIssuerUrl: string;
  now: () => Date;
}

/** Step 3: a DPoP proof (or `dpop_jkt`) binds the code to a key (RFC 9449 §10); both must agree. */
async function bindDpopKey(
  request: ParRequest,
  parameters: ParParameters,
  deps: ParEndpointDeps,
): Promise<string | undefined> {
  const proof: VerifiedDpopProof | undefined = await verifyTokenDpopProof(
    request.dpopHeader,
    deps.dpop,
    deps.parEndpointUrl,
  );
  if (proof && parameters.dpopJkt !== undefined && proof.jkt !== parameters.dpopJkt) {
    throw new InvalidDpopProof("dpop_jkt does not match the key of the DPoP proof");
  }
  return proof?.jkt ?? parameters.dpopJkt;
}

/** Step 5: the offer the issuer_state names must be live. */
async function resolveOffer(issuerState: string | undefined, deps: ParEndpointDeps): Promise<Grant | undefined> {
  if (issuerState === undefined) return undefined;
  const grant = await deps.grants.resolveIssuerState(issuerState);
  if (!grant) throw new InvalidRequest("issuer_state is unknown, or its credential offer has expired or was used");
  return grant;
}

/**
 * `POST /v1/par` (RFC 9126, this service's README) as an ordered list of steps, once the route's
 * schema checked the parameters (400): attestation headers present when required (401), DPoP proof (before the attestation, so a `use_dpop_nonce`
 * retry does not burn the PoP), client attestation (401 `invalid_client`), the offer behind
 * issuer_state and the configurations asked for (400), then the stored request and its
 * single-use request_uri.
 */
export async function handleParRequest(request: ParRequest, deps: ParEndpointDeps): Promise<ParResponse> {
  const { parameters } = request;
  const attested = sendsClientAttestation(request.clientAttestation);
  if (!attested && deps.clientAttestationRequired) throw clientAttestationRequired();
  const dpopJkt = await bindDpopKey(request, parameters, deps);
  if (attested) await authenticateClient(request.clientAttestation, parameters.clientId, deps.clientAuthentication);
  const grant = await resolveOffer(parameters.issuerState, deps);
  const credentialConfigurationIds = selectCredentialConfigurations(
    parameters,
    grant && { grant, credentialIssuer: `${deps.credentialIssuerUrl}/${grant.tenant}` },
  );

  const handle = randomSecret();
  const now = deps.now();
  await deps.requests.insert({
    id: randomUUID(),
    requestUriHash: sha256Hex(handle),
    clientId: parameters.clientId,
    redirectUri: parameters.redirectUri,
    codeChallenge: parameters.codeChallenge,
    state: parameters.state,
    issuerState: parameters.issuerState,
    tenant: grant?.tenant,
    offerId: grant?.offerId,
    credentialConfigurationIds,
    dpopJkt,
    clientAttested: attested,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000),
  });
  return {
    body: { request_uri: `${REQUEST_URI_PREFIX}${handle}`, expires_in: REQUEST_URI_LIFETIME_SECONDS },
    dpopNonce: deps.dpop.nonces.issue(),
  };
}
