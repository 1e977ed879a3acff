import type {
  AUTHORIZATION_CODE_GRANT_TYPE,
  PRE_AUTHORIZED_CODE_GRANT_TYPE,
} from "../create-authorization-server-metadata.js";

export interface PreAuthorizedCodeGrantRequest {
  grantType: typeof PRE_AUTHORIZED_CODE_GRANT_TYPE;
  preAuthorizedCode: string;
  /** `tx_code`, or the pre-1.0 `user_pin` some wallets still send. */
  txCode: string | undefined;
}

export interface AuthorizationCodeGrantRequest {
  grantType: typeof AUTHORIZATION_CODE_GRANT_TYPE;
  code: string;
  redirectUri: string;
  clientId: string;
  /** Optional here: a missing verifier is `invalid_grant` (RFC 7636 §4.6), decided with the code. */
  codeVerifier: string | undefined;
}

export type GrantRequest = PreAuthorizedCodeGrantRequest | AuthorizationCodeGrantRequest;
