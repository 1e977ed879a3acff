import { DPOP_SIGNING_ALGS } from "@attesto/protocol";
import { z } from "zod";

export const PRE_AUTHORIZED_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
export const AUTHORIZATION_CODE_GRANT_TYPE = "authorization_code";

/** RFC 8414 authorization server metadata, exactly the fields listed in this service's README plus jwks_uri and anonymous access. */
export const zAuthorizationServerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  pushed_authorization_request_endpoint: z.string(),
  end_session_endpoint: z.string(),
  jwks_uri: z.string(),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  client_attestation_signing_alg_values_supported: z.array(z.string()),
  client_attestation_pop_signing_alg_values_supported: z.array(z.string()),
  dpop_signing_alg_values_supported: z.array(z.string()),
  authorization_details_types_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
  id_token_signing_alg_values_supported: z.array(z.string()),
  /** OID4VCI: the token endpoint accepts pre-authorized codes without client authentication. */
  "pre-authorized_grant_anonymous_access_supported": z.boolean(),
});
export type AuthorizationServerMetadata = z.infer<typeof zAuthorizationServerMetadata>;

/** The public URLs of the authorization server's endpoints, from its public URL (`{auth_url}`). */
export function authorizationServerUrls(authUrl: string) {
  return {
    issuer: authUrl,
    authorizationEndpoint: `${authUrl}/v1/authorize`,
    tokenEndpoint: `${authUrl}/v1/token`,
    parEndpoint: `${authUrl}/v1/par`,
    endSessionEndpoint: `${authUrl}/end_session`,
    jwksUri: `${authUrl}/.well-known/jwks.json`,
  };
}
export type AuthorizationServerUrls = ReturnType<typeof authorizationServerUrls>;

/**
 * The discovery document. `issuer` is the public URL with no trailing slash and no path suffix:
 * every access token's `iss` equals it, and OID4VCI wallets find this document at
 * `<issuer>/.well-known/oauth-authorization-server` from the credential issuer's `authorization_servers`.
 */
export function createAuthorizationServerMetadata(urls: AuthorizationServerUrls): AuthorizationServerMetadata {
  const signingAlgs = [...DPOP_SIGNING_ALGS];
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorizationEndpoint,
    token_endpoint: urls.tokenEndpoint,
    pushed_authorization_request_endpoint: urls.parEndpoint,
    end_session_endpoint: urls.endSessionEndpoint,
    jwks_uri: urls.jwksUri,
    response_types_supported: ["code"],
    grant_types_supported: [AUTHORIZATION_CODE_GRANT_TYPE, PRE_AUTHORIZED_CODE_GRANT_TYPE],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["attest_jwt_client_auth"],
    client_attestation_signing_alg_values_supported: signingAlgs,
    client_attestation_pop_signing_alg_values_supported: signingAlgs,
    dpop_signing_alg_values_supported: signingAlgs,
    authorization_details_types_supported: ["openid_credential"],
    authorization_response_iss_parameter_supported: true,
    id_token_signing_alg_values_supported: ["ES256"],
    "pre-authorized_grant_anonymous_access_supported": true,
  };
}
