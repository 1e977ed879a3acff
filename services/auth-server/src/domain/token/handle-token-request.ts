import type { AccessTokenSigner, VerifiedDpopProof } from "@attesto/protocol";
import type { ClientAttestationHeaders } from "../client-authentication.js";
import type { GrantRedeemer } from "../ports.js";
import { type AuthorizationCodeGrantDeps, exchangeAuthorizationCode } from "./exchange-authorization-code.js";
import type { GrantRequest } from "./grant-request.js";
import { issueAccessToken } from "./issue-access-token.js";
import { type RedeemGrantDeps, redeemGrant } from "./redeem-grant.js";
import { type TokenDpopDeps, verifyTokenDpopProof } from "./verify-token-dpop-proof.js";

export interface TokenRequest {
  /** The grant and its parameters, checked by the route's schema (`services/auth-server/src/routes/token-request.schema.ts`). */
  grant: GrantRequest;
  /** The `DPoP` request header(s), as received. */
  dpopHeader: string | string[] | undefined;
  /** attest_jwt_client_auth headers (authorization-code grant; ignored by the pre-authorized grant). */
  clientAttestation?: ClientAttestationHeaders;
}

/** `token_type` DPoP when the request carried a DPoP proof, else Bearer. No c_nonce (OID4VCI 1.0). */
export interface TokenResponseBody {
  access_token: string;
  token_type: "DPoP" | "Bearer";
  expires_in: number;
}

export interface TokenResponse {
  body: TokenResponseBody;
  /** A fresh nonce for the client's next DPoP proof (sent as `DPoP-Nonce`). */
  dpopNonce: string;
}

export interface TokenEndpointDeps {
  grants: Pick<GrantRedeemer, "redeemPreAuthorizedCode">;
  /** Redemptions whose answer was lost, for the wallet's retry (see redeemGrant). */
  unanswered: RedeemGrantDeps["unanswered"];
  now: () => Date;
  signer: Pick<AccessTokenSigner, "sign" | "ttlSeconds">;
  /** Public URL of the credential issuer; the token audience is `<it>/<tenant>`. */
  credentialIssuerUrl: string;
  dpop: TokenDpopDeps;
  authorizationCode: AuthorizationCodeGrantDeps;
}

/** Step 5: the response. */
function createTokenResponse(accessToken: string, proof: VerifiedDpopProof | undefined, deps: TokenEndpointDeps) {
  return {
    body: { access_token: accessToken, token_type: proof ? "DPoP" : "Bearer", expires_in: deps.signer.ttlSeconds },
    dpopNonce: deps.dpop.nonces.issue(),
  } satisfies TokenResponse;
}

/**
 * `POST /v1/token`, as an ordered list of steps once the route's schema checked the parameters.
 * Each step throws the OAuth error of its check; the order is part of the contract: parameters before DPoP, DPoP before redemption (a nonce
 * retry must not burn the code), redemption before signing. The authorization-code grant's own
 * steps are in `exchangeAuthorizationCode`.
 */
export async function handleTokenRequest(request: TokenRequest, deps: TokenEndpointDeps): Promise<TokenResponse> {
  const grantRequest = request.grant;
  const proof = await verifyTokenDpopProof(request.dpopHeader, deps.dpop);
  const signing = { signer: deps.signer, credentialIssuerUrl: deps.credentialIssuerUrl };
  let accessToken: string;
  if (grantRequest.grantType === "authorization_code") {
    accessToken = await exchangeAuthorizationCode(
      grantRequest,
      { proof, clientAttestation: request.clientAttestation ?? { attestation: undefined, pop: undefined } },
      deps.authorizationCode,
      (code) => issueAccessToken(code.grant, proof, signing, code.clientId),
    );
  } else {
    accessToken = await issueAccessToken(await redeemGrant(grantRequest, deps), proof, signing);
  }
  return createTokenResponse(accessToken, proof, deps);
}
