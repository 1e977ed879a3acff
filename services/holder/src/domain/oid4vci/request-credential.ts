import { createDpopProof } from "@attesto/protocol";
import { unavailable } from "@attesto/runtime/errors";
import type { JWK } from "jose";
import { invalidProof, issuanceFailed } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, isJsonObject, jsonObjectOf, oauthErrorOf, stringOf } from "../http/read-json.js";
import type { HolderDependencies, OutboundResponse } from "../ports.js";
import type { AccessToken } from "./request-access-token.js";

export interface IssuedCredential {
  credential: string;
  /** `reference` of an `is_on_chain` issuance (Attesto's extension). */
  reference: { chain: string; objectId: string; issuerSalt?: string } | undefined;
  /** OID4VCI 1.0 §8.3: names this response's credentials at the issuer's notification endpoint. */
  notificationId: string | undefined;
  /** The issuer's id of the credential and of its offer (Attesto's `credential_id`, `offer_id` beside `credential`). */
  issuerCredentialId: string | null;
  issuerOfferId: string | null;
}

/** An issuer's id worth keeping: a short printable string, else nothing. */
const issuerIdOf = (value: unknown): string | null => {
  const id = stringOf(value);
  return id !== undefined && /^[\x21-\x7e]{1,255}$/.test(id) ? id : null;
};

/** The c_nonce for the key proof: from the nonce endpoint (OID4VCI 1.0), else the token response's. */
export async function fetchCNonce(
  deps: Pick<HolderDependencies, "http">,
  nonceEndpoint: string | undefined,
  token: AccessToken,
): Promise<string | undefined> {
  if (!nonceEndpoint) return token.cNonce;
  const response = await fetchFromThirdParty(deps, nonceEndpoint, "nonce endpoint", issuanceFailed, {
    method: "POST",
    headers: { accept: "application/json" },
  });
  if (response.status !== 200) throw issuanceFailed(`the nonce endpoint failed (${describeFailure(response)})`);
  const nonce = stringOf(jsonObjectOf(response)?.c_nonce);
  if (!nonce) throw issuanceFailed("the nonce endpoint answered no c_nonce");
  return nonce;
}

/** Whether a resource server asks for a DPoP nonce: 401 `WWW-Authenticate: DPoP error="use_dpop_nonce"` (or a 400). */
export function asksForDpopNonce(response: OutboundResponse): boolean {
  if (!response.headers.get("dpop-nonce")) return false;
  const challenge = response.headers.get("www-authenticate") ?? "";
  if (response.status === 401 && /error="?use_dpop_nonce"?/i.test(challenge)) return true;
  return (response.status === 400 || response.status === 401) && oauthErrorOf(response).error === "use_dpop_nonce";
}

/**
 * POST credential_endpoint with the access token (DPoP scheme and a proof with `ath` when the token
 * is DPoP-bound). A `use_dpop_nonce` answer is retried once with the server's nonce.
 */
export async function postCredentialRequest(
  deps: Pick<HolderDependencies, "http" | "now">,
  input: { endpoint: string; token: AccessToken; dpopKey: JWK; body: Record<string, unknown> },
): Promise<OutboundResponse> {
  let nonce: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `${input.token.scheme} ${input.token.token}`,
    };
    if (input.token.scheme === "DPoP") {
      headers.dpop = await createDpopProof({
        privateJwk: input.dpopKey,
        method: "POST",
        url: input.endpoint,
        accessToken: input.token.token,
        now: deps.now(),
        ...(nonce ? { nonce } : {}),
      });
    }
    const response = await fetchFromThirdParty(deps, input.endpoint, "credential endpoint", issuanceFailed, {
      method: "POST",
      headers,
      body: JSON.stringify(input.body),
    });
    if (input.token.scheme === "DPoP" && attempt === 0 && asksForDpopNonce(response)) {
      nonce = response.headers.get("dpop-nonce") ?? undefined;
      continue;
    }
    return response;
  }
}

/** Whether the issuer refused the proof's c_nonce (pre-1.0 `invalid_nonce`): worth one retry with a fresh nonce. */
export const refusedNonce = (response: OutboundResponse): boolean =>
  response.status === 400 && oauthErrorOf(response).error === "invalid_nonce";

/** The credential of a credential response (1.0 `credentials[0].credential`, or pre-1.0 `credential`). */
export function parseCredentialResponse(response: OutboundResponse): IssuedCredential {
  const failure = describeFailure(response);
  const { error } = oauthErrorOf(response);
  if (response.status === 202)
    throw issuanceFailed("the issuer deferred the issuance; deferred issuance is not supported");
  if (response.status === 503) throw unavailable(`the credential issuer is unavailable (${failure})`);
  if (error === "invalid_proof" || error === "invalid_nonce") {
    throw invalidProof(`the credential issuer refused the key proof (${failure})`);
  }
  if (response.status !== 200) throw issuanceFailed(`the credential endpoint refused the request (${failure})`);
  const body = jsonObjectOf(response);
  if (!body) throw issuanceFailed("the credential response is not a JSON object");
  if (body.transaction_id !== undefined && body.credentials === undefined) {
    throw issuanceFailed("the issuer deferred the issuance; deferred issuance is not supported");
  }
  const first = Array.isArray(body.credentials) ? (body.credentials[0] as unknown) : undefined;
  const credential = isJsonObject(first) ? stringOf(first.credential) : stringOf(body.credential);
  if (!credential) throw issuanceFailed("the credential response carries no credential string");
  const reference = isJsonObject(first) && isJsonObject(first.reference) ? first.reference : undefined;
  const chain = stringOf(reference?.chain);
  const objectId = stringOf(reference?.object_id);
  // The issuer's salt of the notarized digest (Attesto): kept only in its one well-formed shape.
  const issuerSalt = stringOf(reference?.issuer_salt);
  return {
    credential,
    reference:
      chain && objectId
        ? { chain, objectId, ...(issuerSalt && /^[0-9a-f]{64}$/.test(issuerSalt) ? { issuerSalt } : {}) }
        : undefined,
    notificationId: stringOf(body.notification_id),
    issuerCredentialId: isJsonObject(first) ? issuerIdOf(first.credential_id) : null,
    issuerOfferId: isJsonObject(first) ? issuerIdOf(first.offer_id) : null,
  };
}
