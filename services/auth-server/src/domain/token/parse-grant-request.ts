import { UnsupportedGrantType } from "@attesto/runtime/errors";
import {
  AUTHORIZATION_CODE_GRANT_TYPE,
  PRE_AUTHORIZED_CODE_GRANT_TYPE,
} from "../create-authorization-server-metadata.js";
import { optionalParameter, requiredParameter, requiredParameters, type TokenParameters } from "./token-parameters.js";

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

/** Each supported grant type and how its own parameters are read. */
const GRANT_TYPES: Record<string, (parameters: TokenParameters) => GrantRequest> = {
  [PRE_AUTHORIZED_CODE_GRANT_TYPE]: (parameters) => ({
    grantType: PRE_AUTHORIZED_CODE_GRANT_TYPE,
    preAuthorizedCode: requiredParameter(parameters, "pre-authorized_code"),
    txCode: optionalParameter(parameters, "tx_code") ?? optionalParameter(parameters, "user_pin"),
  }),
  [AUTHORIZATION_CODE_GRANT_TYPE]: (parameters) => {
    const required = requiredParameters(parameters, ["code", "redirect_uri", "client_id"]);
    return {
      grantType: AUTHORIZATION_CODE_GRANT_TYPE,
      code: required.code,
      redirectUri: required.redirect_uri,
      clientId: required.client_id,
      codeVerifier: optionalParameter(parameters, "code_verifier"),
    };
  },
};

/** Step 1: `grant_type` and the parameters that grant type requires. */
export function parseGrantRequest(parameters: TokenParameters): GrantRequest {
  const grantType = requiredParameter(parameters, "grant_type");
  const parse = Object.hasOwn(GRANT_TYPES, grantType) ? GRANT_TYPES[grantType] : undefined;
  if (!parse) {
    throw new UnsupportedGrantType(
      `grant_type is not supported; use ${PRE_AUTHORIZED_CODE_GRANT_TYPE} or ${AUTHORIZATION_CODE_GRANT_TYPE}`,
    );
  }
  return parse(parameters);
}
