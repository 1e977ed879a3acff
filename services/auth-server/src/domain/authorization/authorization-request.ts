/**
 * States of an authorization request (one PAR and the browser step that follows it):
 * - `pushed`: stored by POST /v1/par; its request_uri is usable once, for 60 s.
 * - `presented`: GET /v1/authorize consumed the request_uri and showed the consent page to one
 *   browser session; it may be answered until `consentExpiresAt`.
 * - `approved` / `denied`: POST /v1/authorize/submit answered it (final).
 */
export type AuthorizationRequestStatus = "pushed" | "presented" | "approved" | "denied";

export interface AuthorizationRequest {
  /** Internal id (set at PAR); the consent form names the request by it. */
  id: string;
  /** From the PAR, checked there. */
  clientId: string;
  redirectUri: string;
  /** S256 challenge (the only method accepted). */
  codeChallenge: string;
  state: string | undefined;
  /** The credential offer's issuer_state (lowercase UUID); undefined when the PAR named none. */
  issuerState: string | undefined;
  /** The offer this request is about (from GrantService.ResolveIssuerState at PAR). */
  tenant: string | undefined;
  offerId: string | undefined;
  /** What the wallet asked for (authorization_details / scope), within the offer; the token carries these only. */
  credentialConfigurationIds: string[];
  /** RFC 9449 §10: the DPoP key the code is bound to (PAR DPoP proof or `dpop_jkt`). */
  dpopJkt: string | undefined;
  /** Whether the PAR was authenticated with a client attestation (the token request then must be too). */
  clientAttested: boolean;
  status: AuthorizationRequestStatus;
  createdAt: Date;
  /** When the request_uri expires (PAR + 60 s). */
  expiresAt: Date;
  /** Set when presented: the browser session (SHA-256 of its cookie) and the form's CSRF token (SHA-256). */
  browserSessionHash: string | undefined;
  csrfTokenHash: string | undefined;
  consentExpiresAt: Date | undefined;
  completedAt: Date | undefined;
}

export type NewAuthorizationRequest = Omit<
  AuthorizationRequest,
  "status" | "browserSessionHash" | "csrfTokenHash" | "consentExpiresAt" | "completedAt"
> & {
  /** SHA-256 of the request_uri handle; the handle itself is never stored. */
  requestUriHash: string;
};
