import { createDpopProof } from "@attesto/protocol";
import type { JWK } from "jose";
import { issuanceFailed } from "../errors.js";
import { fetchFromThirdParty } from "../http/fetch-from-third-party.js";
import { describeFailure, jsonObjectOf, oauthErrorOf, stringOf } from "../http/read-json.js";
import type { HolderDependencies } from "../ports.js";
import type { AuthorizationServerMetadata } from "./z-credential-offer.js";

export interface PushedAuthorizationRequest {
  requestUri: string;
  /** The DPoP-Nonce the server handed out with the answer (used at the token endpoint). */
  dpopNonce: string | undefined;
}

/**
 * POST pushed_authorization_request_endpoint (RFC 9126) with the form, a DPoP proof when the
 * server takes DPoP (binding the code to the flow's DPoP key, RFC 9449 §10) and the client's
 * headers (a fresh attestation PoP per attempt). `use_dpop_nonce` is retried once with the nonce.
 */
export async function pushAuthorizationRequest(
  deps: Pick<HolderDependencies, "http" | "now">,
  input: {
    metadata: AuthorizationServerMetadata & { pushed_authorization_request_endpoint: string };
    form: URLSearchParams;
    dpopKey: JWK | undefined;
    clientAuthentication: () => Promise<Record<string, string>>;
  },
): Promise<PushedAuthorizationRequest> {
  const endpoint = input.metadata.pushed_authorization_request_endpoint;
  let nonce: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
      ...(await input.clientAuthentication()),
    };
    if (input.dpopKey) {
      headers.dpop = await createDpopProof({
        privateJwk: input.dpopKey,
        method: "POST",
        url: endpoint,
        now: deps.now(),
        ...(nonce ? { nonce } : {}),
      });
    }
    const response = await fetchFromThirdParty(
      deps,
      endpoint,
      "pushed authorization request endpoint",
      issuanceFailed,
      { method: "POST", headers, body: input.form.toString() },
    );
    const { error } = oauthErrorOf(response);
    const serverNonce = response.headers.get("dpop-nonce") ?? undefined;
    if (input.dpopKey && response.status === 400 && error === "use_dpop_nonce" && serverNonce && attempt === 0) {
      nonce = serverNonce;
      continue;
    }
    if (response.status === 401 || error === "invalid_client") {
      throw issuanceFailed(
        `the authorization server refused the wallet's client authentication (${describeFailure(response)}); it must trust the wallet provider key (WALLET_PROVIDER_KEY)`,
      );
    }
    if (response.status !== 201 && response.status !== 200) {
      throw issuanceFailed(`the pushed authorization request was refused (${describeFailure(response)})`);
    }
    const requestUri = stringOf(jsonObjectOf(response)?.request_uri);
    if (!requestUri) throw issuanceFailed("the pushed authorization response has no request_uri");
    return { requestUri, dpopNonce: serverNonce };
  }
}
