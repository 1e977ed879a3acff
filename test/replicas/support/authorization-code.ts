import { createDemoClientAttestationHeaders } from "@attesto/auth-server";
import { createPkce } from "@attesto/protocol";
import { WALLET_REDIRECT_URI } from "../../hostile/support/authorization-code.js";
import {
  BADGE_CONFIG,
  createOffer,
  dpopProof,
  expectStatus,
  p256Key,
  type Tenant,
  withDpopNonce,
} from "../../hostile/support/flows.js";
import { type HttpResult, http, postForm } from "../../hostile/support/http.js";
import type { PlatformUrls } from "../../hostile/support/platform.js";

const hiddenField = (html: string, name: string) =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];

/** An authorization code the user approved, and how the wallet exchanges it (fresh attestation and DPoP each time). */
export interface ApprovedCode {
  code: string;
  exchange(): Promise<HttpResult>;
}

/**
 * The authorization-code flow up to the approved code, as a wallet and its user drive it (PAR with
 * PKCE and the demo wallet-provider attestation, consent page, Approve); `exchange` is the wallet's
 * token request for it.
 */
export async function approvedAuthorizationCode(urls: PlatformUrls, tenant: Tenant): Promise<ApprovedCode> {
  const walletKey = p256Key();
  const clientId = `wallet-${walletKey.publicJwk.x?.slice(0, 8)}`;
  const attestation = () =>
    createDemoClientAttestationHeaders({ clientId, instancePrivateJwk: walletKey.privateJwk, audience: urls.auth });
  const pkce = createPkce();
  const offer = await createOffer(urls, tenant.apiKey, { body: { flow: "authorization-code" } });
  const document = expectStatus(await http(offer.credential_offer_uri), 200, "GET offer").json as {
    grants: { authorization_code: { issuer_state: string } };
  };
  const pushed = await postForm(
    `${urls.auth}/v1/par`,
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: WALLET_REDIRECT_URI,
      code_challenge: pkce.codeChallenge,
      code_challenge_method: "S256",
      scope: BADGE_CONFIG,
      issuer_state: document.grants.authorization_code.issuer_state,
    },
    await attestation(),
  );
  expectStatus(pushed, 201, "POST /v1/par");
  const requestUri = (pushed.json as { request_uri: string }).request_uri;
  const page = expectStatus(
    await http(`${urls.auth}/v1/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`),
    200,
    "GET /v1/authorize",
  );
  const approved = await http(`${urls.auth}/v1/authorize/submit`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: (page.headers.get("set-cookie") ?? "").split(";")[0]!,
    },
    body: new URLSearchParams({
      request_id: hiddenField(page.text, "request_id")!,
      csrf_token: hiddenField(page.text, "csrf_token")!,
      decision: "approve",
    }).toString(),
  });
  expectStatus(approved, 303, "POST /v1/authorize/submit");
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const fields = {
    grant_type: "authorization_code",
    code,
    redirect_uri: WALLET_REDIRECT_URI,
    code_verifier: pkce.codeVerifier,
    client_id: clientId,
  };
  return {
    code,
    exchange() {
      const dpopKey = p256Key();
      return withDpopNonce(async (nonce) =>
        postForm(`${urls.auth}/v1/token`, fields, {
          ...(await attestation()),
          dpop: await dpopProof({
            key: dpopKey,
            htu: `${urls.auth}/v1/token`,
            ...(nonce === undefined ? {} : { nonce }),
          }),
        }),
      );
    },
  };
}
