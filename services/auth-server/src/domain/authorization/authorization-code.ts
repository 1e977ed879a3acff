import type { Grant } from "../grant.js";

/** Authorization codes live 60 s and are single use. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;

/**
 * An authorization code, created when the person approves (the offer's issuer_state is then
 * redeemed at the credential issuer). Stored by SHA-256 only. It carries what the token request is
 * checked against (client, redirect_uri, PKCE challenge, DPoP key, attestation) and the grant.
 */
export interface AuthorizationCode {
  codeHash: string;
  authorizationRequestId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  dpopJkt: string | undefined;
  clientAttested: boolean;
  /** The offer, restricted to the configurations the wallet was authorized for. */
  grant: Grant;
  createdAt: Date;
  expiresAt: Date;
  /** Set by the one successful token request. */
  redeemedAt: Date | undefined;
  /** The access token that redemption issued (its `jti` and expiry), for revocation on replay. */
  accessTokenJti: string | undefined;
  /** Set when the code was presented again after redemption (RFC 6749 §4.1.2): its token is revoked. */
  revokedAt: Date | undefined;
}

export type NewAuthorizationCode = Omit<AuthorizationCode, "redeemedAt" | "accessTokenJti" | "revokedAt">;
