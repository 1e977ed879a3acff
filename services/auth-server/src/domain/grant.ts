/** What a redeemed grant entitles the token holder to (from the credential issuer's GrantService). */
export interface Grant {
  offerId: string;
  /** Tenant identifier; the credential issuer identifier is `<issuer URL>/<tenant>`. */
  tenant: string;
  credentialConfigurationIds: string[];
  /** X.509 / HAIP path: the credential endpoint requires a DPoP-bound token. */
  dpopRequired: boolean;
  /**
   * The offer's claims as object-key paths, never their values: the consent page lists them (set
   * by the GrantService answers; a grant read back from a stored code has none).
   */
  claimPaths?: string[][];
}
