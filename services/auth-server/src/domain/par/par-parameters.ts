/** One RFC 9396 authorization_details entry, as sent (checked against the offer later). */
export type AuthorizationDetail = Record<string, unknown> & { type: string };

/** A pushed authorization request whose parameters passed their schema (this service's README). */
export interface ParParameters {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  /** Space-separated scope values, each a credential configuration id. */
  scopes: string[];
  /** Lowercase UUID. */
  issuerState: string | undefined;
  authorizationDetails: AuthorizationDetail[] | undefined;
  state: string | undefined;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is to be bound to. */
  dpopJkt: string | undefined;
}
